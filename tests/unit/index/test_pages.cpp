// PEP 503 HTML, PEP 691 JSON and find-links pages; URLs resolve as browsers resolve them.
#include <catch2/catch.hpp>

#include "bevenv/index/project.hpp"

using namespace bevenv;

TEST_CASE("PEP 503 pages give files, hashes, requires-python and PEP 658 metadata",
          "[index][html]") {
  const std::string html = R"(<!DOCTYPE html><html><body>
<a href="../../packages/ab/yapf-0.40.1-py3-none-any.whl#sha256=B8BFC1F280949153E795181768CA14EF43D7312629A06C43E7ABD279323AF313"
   data-requires-python="&gt;=3.7" data-dist-info-metadata="sha256=1111111111111111111111111111111111111111111111111111111111111111">yapf-0.40.1-py3-none-any.whl</a><br/>
<a href='https://files.example/yapf-0.40.2.tar.gz' data-yanked="">yapf-0.40.2.tar.gz</a>
<A HREF="/other/otherpkg-1.0-py3-none-any.whl">otherpkg</A>
<a href="notes.txt">notes</a>
</body></html>)";
  const auto parsed = index::parse_simple_html(html, "https://idx.example/simple/yapf/", "yapf");
  REQUIRE(parsed);
  const auto& files = *parsed;
  REQUIRE(files.size() == 2);
  CHECK(files[0].url == "https://idx.example/packages/ab/yapf-0.40.1-py3-none-any.whl");
  CHECK(files[0].sha256 == "b8bfc1f280949153e795181768ca14ef43d7312629a06c43e7abd279323af313");
  CHECK(files[0].requires_python.to_string() == ">=3.7");
  CHECK(files[0].has_metadata_file);
  CHECK(files[0].metadata_sha256 == std::string(64, '1'));
  CHECK(files[1].kind == index::ArtifactKind::sdist);
  CHECK(files[1].yanked);
  CHECK_FALSE(files[1].has_metadata_file);

  // A find-links page lists every project; with no project name all of them come back.
  const auto all = index::parse_simple_html(html, "https://idx.example/simple/yapf/");
  REQUIRE(all);
  REQUIRE(all->size() == 3);
  CHECK((*all)[2].url == "https://idx.example/other/otherpkg-1.0-py3-none-any.whl");
}

TEST_CASE("find-links pages with percent-encoded local versions", "[index][html]") {
  const std::string html =
      "<a href=\"cu111/torch-1.9.0%2Bcu111-cp38-cp38-linux_x86_64.whl\">"
      "cu111/torch-1.9.0%2Bcu111-cp38-cp38-linux_x86_64.whl</a><br>\n"
      "<a href=\"mmcv_full-1.4.0-cp38-cp38-manylinux1_x86_64.whl\">mmcv_full</a>";
  const auto parsed =
      index::parse_simple_html(html, "https://download.pytorch.org/whl/torch_stable.html");
  REQUIRE(parsed);
  const auto& files = *parsed;
  REQUIRE(files.size() == 2);
  CHECK(files[0].name == "torch");
  CHECK(files[0].version.to_string() == "1.9.0+cu111");
  CHECK(files[0].filename == "torch-1.9.0+cu111-cp38-cp38-linux_x86_64.whl");
  CHECK(files[0].url ==
        "https://download.pytorch.org/whl/cu111/torch-1.9.0%2Bcu111-cp38-cp38-linux_x86_64.whl");
  CHECK(files[1].name == "mmcv-full");
}

TEST_CASE("PEP 691 JSON pages", "[index][json]") {
  const std::string json = R"({"meta": {"api-version": "1.1"}, "name": "zipp", "files": [
    {"filename": "zipp-3.17.0-py3-none-any.whl", "url": "../../files/zipp-3.17.0-py3-none-any.whl",
     "hashes": {"sha256": "0e923e726174922dce09c53c59ad483ff7bbb8e572e00c7f7c46b88556409f31"},
     "requires-python": ">=3.8", "size": 8496, "core-metadata": {"sha256": "2222222222222222222222222222222222222222222222222222222222222222"}},
    {"filename": "zipp-3.0.0.tar.gz", "url": "https://x/zipp-3.0.0.tar.gz", "hashes": {},
     "yanked": "broken"}]})";
  const auto files = index::parse_simple_json(json, "http://127.0.0.1:1/simple/zipp/", "zipp");
  REQUIRE(files);
  REQUIRE(files->size() == 2);
  CHECK((*files)[0].url == "http://127.0.0.1:1/files/zipp-3.17.0-py3-none-any.whl");
  CHECK((*files)[0].size == 8496u);
  CHECK((*files)[0].has_metadata_file);
  CHECK((*files)[1].yanked);
  CHECK((*files)[1].sha256.empty());

  const auto truncated = index::parse_simple_json(json.substr(0, 40), "http://x/", "zipp");
  REQUIRE_FALSE(truncated);
  CHECK(truncated.error() == "the page is not valid JSON");
  CHECK_FALSE(index::parse_simple_json("{\"name\": \"zipp\"}", "http://x/", "zipp"));
}

// A hash of the wrong length would otherwise read as "no hash", and the file go unchecked.
TEST_CASE("a sha256 that is not 64 hex digits is an error naming file and field",
          "[index][html][json]") {
  const std::string wheel = "demo-1.0-py3-none-any.whl";
  for (const std::string& hex :
       {std::string(40, 'a'), std::string(65, 'a'), std::string(63, 'a') + "g", std::string()}) {
    INFO(hex);
    const auto link = index::parse_simple_html(
        "<a href=\"/f/" + wheel + "#sha256=" + hex + "\">x</a>", "https://x/simple/demo/");
    REQUIRE_FALSE(link);
    CHECK(link.error().find("`" + wheel + "`: the sha256 in `#sha256=`") != std::string::npos);
    const auto meta = index::parse_simple_html(
        "<a href=\"/f/" + wheel + "\" data-core-metadata=\"sha256=" + hex + "\">x</a>",
        "https://x/simple/demo/");
    REQUIRE_FALSE(meta);
    CHECK(meta.error().find("`data-core-metadata`") != std::string::npos);
    const auto json = index::parse_simple_json(R"({"files": [{"filename": ")" + wheel +
                                                   R"(", "url": "/f/x", "hashes": {"sha256": ")" +
                                                   hex + R"("}}]})",
                                               "https://x/simple/demo/");
    REQUIRE_FALSE(json);
    CHECK(json.error().find("`" + wheel + "`: `hashes.sha256`") != std::string::npos);
    const auto core = index::parse_simple_json(
        R"({"files": [{"filename": ")" + wheel +
            R"(", "url": "/f/x", "core-metadata": {"sha256": ")" + hex + R"("}}]})",
        "https://x/simple/demo/");
    REQUIRE_FALSE(core);
    CHECK(core.error().find("`core-metadata.sha256`") != std::string::npos);
  }
  // Other algorithms are not a sha256: no hash, no error.
  const auto md5 = index::parse_simple_html("<a href=\"/f/" + wheel + "#md5=abc\">x</a>",
                                            "https://x/simple/demo/");
  REQUIRE(md5);
  CHECK(md5->at(0).sha256.empty());
}

TEST_CASE("relative links resolve against the page", "[index][url]") {
  CHECK(index::resolve_url("https://a.example/simple/x/", "../../f/x.whl") ==
        "https://a.example/f/x.whl");
  CHECK(index::resolve_url("https://a.example/simple/x/", "/f/x.whl#sha256=1") ==
        "https://a.example/f/x.whl#sha256=1");
  CHECK(index::resolve_url("https://a.example/whl/torch_stable.html", "cu111/t.whl") ==
        "https://a.example/whl/cu111/t.whl");
  CHECK(index::resolve_url("https://a.example/x", "//b.example/y.whl") ==
        "https://b.example/y.whl");
  CHECK(index::resolve_url("https://a.example/x", "http://c.example/y.whl") ==
        "http://c.example/y.whl");
}
