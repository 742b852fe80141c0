// The generated layer sits below the curated one: a curated record of the same name and version
// wins whatever the layers, and takes from the generated record what it lacks (artifacts with
// hashes, Requires-Python, the requirements it does not mention unless its list is complete).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "bevenv/matrix/loader.hpp"

using namespace bevenv;

namespace {

const std::string kSha(64, 'a');

matrix::SourceFile file(std::string path, std::string text, std::size_t layer) {
  return matrix::SourceFile{std::move(path), std::move(text), layer,
                            layer == 0 ? matrix::Layer::embedded : matrix::Layer::overlay};
}

std::string generated(const std::string& name, const std::string& version,
                      const std::string& requires_ = "[\"dep\"]") {
  return "[[package]]\nname = \"" + name + "\"\nversion = \"" + version +
         "\"\npython = \">=3.7\"\nrequires = " + requires_ +
         "\ndeps = \"complete\"\n"
         "generated = { index = \"https://pypi.org/simple\", read = \"2026-12-01\" }\n"
         "artifacts = [\n  { filename = \"" +
         name + "-" + version + "-py3-none-any.whl\", url = \"https://f/" + name +
         ".whl\", sha256 = \"" + kSha + "\", size = 10 },\n]\n\n";
}

const std::string kDep = generated("dep", "1.0", "[]");

const matrix::PackageVersion& only(const matrix::LoadResult& result, const std::string& name,
                                   const std::string& version) {
  REQUIRE(result.has_value());
  const auto* record = result->find_version(name, core::Version::parse(version).value());
  REQUIRE(record != nullptr);
  return *record;
}

std::vector<std::string> names(const matrix::PackageVersion& record) {
  std::vector<std::string> out;
  for (const auto& r : record.requirements) out.push_back(r.to_string());
  return out;
}

}  // namespace

TEST_CASE("a curated record wins over a generated one and takes its artifacts and requirements") {
  const std::string curated =
      "[[package]]\nname = \"tool\"\nversion = \"1.0\"\nrequires = [\"dep<2\"]\n"
      "sources = [\"https://example.org/review\"]\n";
  for (const std::size_t generated_layer : {0u, 1u, 2u}) {
    INFO("generated layer " << generated_layer);
    const auto result =
        matrix::load_sources({file("curated/a.toml", curated, 1),
                              file("gen/pypi.toml",
                                   kDep + generated("tool", "1.0", "[\"dep>=1\", \"extra\"]") +
                                       generated("extra", "0.1", "[]"),
                                   generated_layer)});
    const auto& tool = only(result, "tool", "1.0");
    CHECK_FALSE(tool.generated.has_value());  // the curated record, filled in
    CHECK(tool.origin.file == "curated/a.toml");
    // The curated bound on `dep` stands; `extra`, which it does not mention, is added.
    CHECK(names(tool) == std::vector<std::string>{"dep<2", "extra"});
    CHECK(tool.deps_complete);
    CHECK(tool.python.to_string() == ">=3.7");
    REQUIRE(tool.artifacts.size() == 1);
    CHECK(tool.artifacts[0].sha256 == kSha);
    CHECK(tool.sources.back() == "gen/pypi.toml (https://pypi.org/simple, read 2026-12-01)");
  }
}

TEST_CASE("a curated record keeps what it says itself") {
  const std::string curated =
      "[[package]]\nname = \"tool\"\nversion = \"1.0\"\npython = \">=3.6\"\n"
      "requires = [\"dep<2\"]\ndeps = \"complete\"\n"
      "url = \"https://mine/tool-1.0-py3-none-any.whl\"\n"
      "sources = [\"https://example.org/review\"]\n\n"
      "[[package]]\nname = \"tool\"\nversion = \"2.0\"\nindex = \"https://other/simple\"\n"
      "sources = [\"https://example.org/review\"]\n";
  const auto result = matrix::load_sources(
      {file("curated/a.toml", curated, 0),
       file("gen/pypi.toml", kDep + generated("tool", "1.0") + generated("tool", "2.0"), 0)});
  const auto& one = only(result, "tool", "1.0");
  CHECK(names(one) == std::vector<std::string>{"dep<2"});  // complete: nothing added
  CHECK(one.python.to_string() == ">=3.6");
  // It names its own file: that one, with the generated hash and size.
  REQUIRE(one.artifacts.size() == 1);
  CHECK(one.artifacts[0].sha256 == kSha);
  // Served from another index: the generated record speaks of other files.
  const auto& two = only(result, "tool", "2.0");
  CHECK(two.artifacts.empty());
  CHECK(two.requirements.empty());
}

TEST_CASE("generated records stand alone, and a later generated layer replaces an earlier one") {
  const auto result =
      matrix::load_sources({file("gen/pypi.toml", kDep + generated("tool", "1.0"), 0),
                            file("new/pypi.toml", generated("tool", "1.0", "[]"), 1)});
  const auto& tool = only(result, "tool", "1.0");
  REQUIRE(tool.generated.has_value());
  CHECK(tool.origin.file == "new/pypi.toml");
  CHECK(tool.requirements.empty());

  // Twice in one layer is a duplicate, as for curated records.
  const auto twice = matrix::load_sources({file("gen/a.toml", kDep + generated("tool", "1.0"), 0),
                                           file("gen/b.toml", generated("tool", "1.0"), 0)});
  REQUIRE_FALSE(twice.has_value());
  CHECK(twice.error().at(0).message.find("duplicate package `tool` `1.0`") != std::string::npos);
}

TEST_CASE("a generated record may require releases the snapshot did not keep, not unknown names") {
  const auto kept_out = matrix::load_sources(
      {file("gen/pypi.toml", kDep + generated("tool", "1.0", "[\"dep>=5\"]"), 0)});
  CHECK(kept_out.has_value());
  const auto unknown =
      matrix::load_sources({file("gen/pypi.toml", generated("tool", "1.0", "[\"nowhere\"]"), 0)});
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().at(0).message.find("`nowhere` is not in the matrix") != std::string::npos);
}

TEST_CASE("artifacts and generated are checked field by field") {
  const std::string bad =
      "[[package]]\nname = \"tool\"\nversion = \"1.0\"\n"
      "generated = { index = \"https://pypi.org/simple\" }\n"
      "artifacts = [{ filename = \"t.whl\", url = \"u\", sha256 = \"abc\", size = -1, x = 1 }]\n";
  const auto result = matrix::load_sources({file("gen/bad.toml", bad, 0)});
  REQUIRE_FALSE(result.has_value());
  std::string all;
  for (const auto& d : result.error()) all += d.to_string() + "\n";
  CHECK(all.find("gen/bad.toml:4:") != std::string::npos);
  CHECK(all.find("`package.generated`: missing required key `read`") != std::string::npos);
  CHECK(all.find("`package.artifacts[0].sha256`: expected 64 hexadecimal digits") !=
        std::string::npos);
  CHECK(all.find("`package.artifacts[0].size`: expected a size in bytes") != std::string::npos);
  CHECK(all.find("`package.artifacts[0]`: unknown key `x`") != std::string::npos);
}

TEST_CASE("a curated hash picks its file from the generated ones, and a foreign one is an error") {
  const auto with_sha = [](const std::string& sha) {
    return "[[package]]\nname = \"tool\"\nversion = \"1.0\"\nsha256 = \"" + sha +
           "\"\nsources = [\"https://example.org/review\"]\n";
  };
  const std::string files = kDep + generated("tool", "1.0");
  const auto same = matrix::load_sources(
      {file("curated/a.toml", with_sha(std::string(64, 'A')), 0), file("gen/pypi.toml", files, 0)});
  CHECK(only(same, "tool", "1.0").artifacts.size() == 1);  // hex digits compare in any case
  const auto other = matrix::load_sources(
      {file("curated/a.toml", with_sha(std::string(64, 'b')), 0), file("gen/pypi.toml", files, 0)});
  REQUIRE_FALSE(other.has_value());
  CHECK(other.error().at(0).to_string().find(
            "curated/a.toml:1:1: `tool@1.0`: the file its `url` or `sha256` names is not among "
            "the artifacts of gen/pypi.toml:") == 0);
}

namespace {

// mmcv-full 1.7.2+source's shape: a curated build of its own sdist, and the snapshot's record of
// that sdist under the curated version.
std::string sdist_build(const std::string& step) {
  return "[[package]]\nname = \"tool\"\nversion = \"1.0+source\"\npublished = false\n"
         "build = \"source\"\nbuild_step = " +
         step +
         "\nrequires = [\"dep\"]\ndeps = \"complete\"\n"
         "sources = [\"https://example.org/review\"]\n";
}

const std::string kSdistStep = "{ sdist = true, env = { WITH_OPS = \"1\" } }";

const std::string kSourceFiles =
    "[[package]]\nname = \"tool\"\nversion = \"1.0+source\"\nbuild = \"source\"\n"
    "generated = { index = \"https://pypi.org/simple\", read = \"2026-12-01\" }\n"
    "artifacts = [\n  { filename = \"tool-1.0.tar.gz\", url = \"https://f/tool-1.0.tar.gz\", "
    "sha256 = \"" +
    kSha + "\", size = 10 },\n]\n\n";

std::string all_errors(const matrix::LoadResult& result) {
  std::string all;
  if (!result) {
    for (const auto& d : result.error()) all += d.to_string() + "\n";
  }
  return all;
}

}  // namespace

TEST_CASE("a curated build of its sdist takes the generated sdist recorded under its version") {
  const auto result = matrix::load_sources({file("curated/a.toml", sdist_build(kSdistStep), 1),
                                            file("gen/pypi.toml", kDep + kSourceFiles, 0)});
  const auto& tool = only(result, "tool", "1.0+source");
  CHECK_FALSE(tool.generated.has_value());
  CHECK(tool.build == matrix::BuildKind::source);
  REQUIRE(tool.build_step.has_value());
  CHECK(tool.build_step->sdist);
  CHECK(tool.build_step->command.empty());
  CHECK(tool.build_step->env.at("WITH_OPS") == "1");
  REQUIRE(tool.artifacts.size() == 1);
  CHECK(tool.artifacts[0].filename == "tool-1.0.tar.gz");
  CHECK(names(tool) == std::vector<std::string>{"dep"});
  // No release `tool 1.0` (PyPI's sdist, built without the step's env) appears beside it.
  CHECK(result->find_package("tool")->versions.size() == 1);
}

TEST_CASE("a generated sdist of a source build never stands alone") {
  const auto alone = matrix::load_sources({file("gen/pypi.toml", kDep + kSourceFiles, 0)});
  CHECK(all_errors(alone).find("gen/pypi.toml:") == 0);
  CHECK(all_errors(alone).find("`tool@1.0+source` (generated) holds the sdist of a source build, "
                               "and no curated record has that version; refresh the snapshot") !=
        std::string::npos);
  // Beside a step that runs a command, it would be a file nothing builds.
  const auto command =
      matrix::load_sources({file("curated/a.toml", sdist_build("{ command = \"make\" }"), 1),
                            file("gen/pypi.toml", kDep + kSourceFiles, 0)});
  CHECK(all_errors(command).find("does not build its sdist (`sdist = true`)") != std::string::npos);
  // `bevenv matrix snapshot` loads without the check, so that a refresh can rewrite it.
  CHECK(matrix::load_sources({file("gen/pypi.toml", kDep + kSourceFiles, 0)}, false).has_value());
}

TEST_CASE("`sdist = true` takes no command, vcs or workdir") {
  const auto clash = matrix::load_sources({file(
      "curated/a.toml",
      sdist_build("{ sdist = true, command = \"make\", workdir = \"x\", vcs = "
                  "\"git+https://github.com/o/r.git@0123456789012345678901234567890123456789\" }"),
      0)});
  const std::string errors = all_errors(clash);
  CHECK(errors.find("`package.build_step.command`: not with `sdist = true`") != std::string::npos);
  CHECK(errors.find("`package.build_step.vcs`: not with `sdist = true`") != std::string::npos);
  CHECK(errors.find("`package.build_step.workdir`: not with `sdist = true`") != std::string::npos);
  // Without a generated sdist the curated record loads; the lock cannot choose it.
  const auto bare = matrix::load_sources(
      {file("curated/a.toml", sdist_build(kSdistStep), 0), file("gen/pypi.toml", kDep, 0)});
  CHECK(only(bare, "tool", "1.0+source").artifacts.empty());
}
