// Releases a newer release stands for (matrix/src/stand_ins.hpp): marked when the load finds
// two releases of a package that give the same record but for the version, and that no
// specifier the matrix states on the package tells apart.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "bevenv/matrix/loader.hpp"

using namespace bevenv;

namespace {

const std::string kSha(64, 'a');

// A generated release with one file: a pure wheel unless `tags` says otherwise.
std::string release(const std::string& name, const std::string& version,
                    const std::string& requires_ = "[]", const std::string& tags = "py3-none-any") {
  return "[[package]]\nname = \"" + name + "\"\nversion = \"" + version +
         "\"\npython = \">=3.7\"\nrequires = " + requires_ +
         "\ndeps = \"complete\"\n"
         "generated = { index = \"https://pypi.org/simple\", read = \"2026-12-01\" }\n"
         "artifacts = [\n  { filename = \"" +
         name + "-" + version + "-" + tags + ".whl\", url = \"https://f/" + name + "-" + version +
         ".whl\", sha256 = \"" + kSha + "\", size = 10 },\n]\n\n";
}

// `lib` 1.0, 1.1 and 1.2, alike but for `middle` (1.1's requirements, say), and `text`.
matrix::LoadResult load(const std::string& text, const std::string& middle = "") {
  const std::string lib = release("lib", "1.0") +
                          (middle.empty() ? release("lib", "1.1") : middle) +
                          release("lib", "1.2") + release("dep", "1.0");
  return matrix::load_sources(
      {matrix::SourceFile{"gen/pypi.toml", lib + text, 0, matrix::Layer::embedded}});
}

// The versions of `name` marked, oldest first.
std::vector<std::string> stood_for(const matrix::LoadResult& result,
                                   const std::string& name = "lib") {
  REQUIRE(result.has_value());
  std::vector<std::string> out;
  for (const auto& v : result->find_package(name)->versions) {
    if (v.newer_stands_for) out.push_back(v.version.to_string());
  }
  return out;
}

using Versions = std::vector<std::string>;

}  // namespace

TEST_CASE("alike releases that nothing tells apart stand for each other, newest kept") {
  CHECK(stood_for(load("")) == Versions{"1.0", "1.1"});
}

TEST_CASE("a specifier the matrix states on the package splits the run where it answers") {
  // `app` requires lib<1.1: 1.0 answers it, 1.1 and 1.2 do not.
  CHECK(stood_for(load(release("app", "1.0", "[\"lib<1.1\"]"))) == Versions{"1.1"});
  // Any release's requirement counts, whatever its marker.
  CHECK(stood_for(load(release("app", "1.0", "[\"lib==1.1; python_version < \\\"3\\\"\"]"))) ==
        Versions{});
}

TEST_CASE("a release with other requirements, files or Python range is its own") {
  SECTION("requirements") {
    CHECK(stood_for(load("", release("lib", "1.1", "[\"dep\"]"))) == Versions{});
  }
  SECTION("files for other targets") {
    CHECK(stood_for(load("", release("lib", "1.1", "[]", "cp38-cp38-manylinux1_x86_64"))) ==
          Versions{});
  }
  SECTION("a pre-release (and a run is compared with its newest release only)") {
    CHECK(stood_for(load("", release("lib", "1.1rc1"))) == Versions{});
  }
}

TEST_CASE("a package some requirement asks extras of keeps every release") {
  CHECK(stood_for(load(release("app", "1.0", "[\"lib[fast]\"]"))) == Versions{});
}

TEST_CASE("a rule's package condition tells releases apart") {
  const std::string rule =
      "[[rule]]\nid = \"lib-old\"\nkind = \"conflicts\"\nwhen.packages = { lib = \"<=1.0\" }\n"
      "then = \"dep>=1\"\nmessage = \"lib 1.0 breaks with dep 1\"\nfix = \"pin `lib>1.0`\"\n"
      "sources = [\"https://example.org/issue\"]\n\n";
  const auto result = load(rule);
  if (!result) {
    for (const auto& d : result.error()) FAIL(d.message);
  }
  CHECK(stood_for(result) == Versions{"1.1"});
}
