// The grammars that keep served text safe as a URL, a path component and a digest.
#include <catch2/catch.hpp>

#include "bevenv/core/outside_text.hpp"

using namespace bevenv;

TEST_CASE("URL text is RFC 3986 characters under http, https or file", "[core][outside]") {
  CHECK(core::is_url_text("https://files.pythonhosted.org/packages/6a/00/addict-2.4.0.tar.gz"));
  CHECK(core::is_url_text("HTTP://127.0.0.1:8080/x;touch$IFS/tmp/p;/a-1.0.tar.gz?a=1&b=2"));
  CHECK(core::is_url_text("file:///opt/wheels/six-1.16.0-py2.py3-none-any.whl"));
  CHECK(core::is_url_text("https://h/a%20b'(c)*"));
  for (const char* bad :
       {"", "ftp://h/x.whl", "/abs/path.whl", "https://h/a b.whl", "https://h/`id`.whl",
        "https://h/${IFS}.whl", "https://h/a\"b", "https://h/a\\b", "https://h/a\nb",
        "https://h/a|b", "https://h/a^b", "https://h/<a>", "javascript:alert(1)"}) {
    INFO(bad);
    CHECK_FALSE(core::is_url_text(bad));
  }
  CHECK_FALSE(core::is_url_text(std::string_view("https://h/a\0b", 13)));
  CHECK_FALSE(core::is_url_text("https://h/" + std::string(5000, 'a')));
  CHECK(core::is_remote_url("https://x"));
  CHECK_FALSE(core::is_remote_url("file:///x"));
}

TEST_CASE("artifact file names cannot be paths", "[core][outside]") {
  CHECK(core::is_artifact_filename("torch-1.10.1+cu113-cp38-cp38-linux_x86_64.whl"));
  CHECK(core::is_artifact_filename("mmcv-full-1.4.0.tar.gz"));
  CHECK(core::is_artifact_filename("pkg-1!2.0.zip"));
  for (const char* bad :
       {"", ".whl", ".hidden-1.0.tar.gz", "pkg-1.0-1/../../x/y-py3-none-any.whl", "..", "a/b.whl",
        "a\\b.whl", "pkg-1.0.exe", "pkg 1.0.tar.gz", "pkg-1.0.tar.gz\n", "pk\xc3\xa9-1.0.tar.gz"}) {
    INFO(bad);
    CHECK_FALSE(core::is_artifact_filename(bad));
  }
  CHECK_FALSE(core::is_artifact_filename(std::string_view("a\0-1.0.whl", 10)));
  CHECK_FALSE(core::is_artifact_filename(std::string(252, 'a') + ".whl"));
}

TEST_CASE("a VCS pin is git over https at a full commit", "[core][outside]") {
  const std::string commit(40, 'c');
  CHECK(core::is_vcs_pin("git+https://github.com/zhijian-liu/torchpack.git@" + commit));
  CHECK_FALSE(core::is_vcs_pin("git+https://github.com/a/b.git@main"));
  CHECK_FALSE(core::is_vcs_pin("git+https://github.com/a/b.git@" + commit.substr(0, 7)));
  CHECK_FALSE(core::is_vcs_pin("git+ssh://github.com/a/b.git@" + commit));
  CHECK_FALSE(core::is_vcs_pin("git+https://h/a b.git@" + commit));
  CHECK_FALSE(core::is_vcs_pin("git+https://h/$(id).git@" + std::string(40, 'C')));
}

TEST_CASE("a sha256 is 64 lower-case hex digits", "[core][outside]") {
  CHECK(core::is_sha256_hex(std::string(64, 'a')));
  CHECK_FALSE(core::is_sha256_hex(std::string(63, 'a')));
  CHECK_FALSE(core::is_sha256_hex(std::string(65, 'a')));
  CHECK_FALSE(core::is_sha256_hex(std::string(40, 'a')));
  CHECK_FALSE(core::is_sha256_hex(std::string(64, 'A')));
  CHECK_FALSE(core::is_sha256_hex("../" + std::string(61, 'a')));
}
