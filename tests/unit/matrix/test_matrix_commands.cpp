#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>

#include "bevenv/app/matrix_commands.hpp"
#include "bevenv/app/matrix_source.hpp"
#include "bevenv/core/error.hpp"
#include "thrown_error.hpp"

using namespace bevenv;

namespace {
std::string all_text(const app::CommandOutput& out) {
  std::string text;
  for (const auto& line : out.lines) text += line.text + "\n";
  return text;
}
}  // namespace

TEST_CASE("matrix check passes on the shipped data") {
  ::unsetenv("BEVENV_MATRIX_PATH");
  const auto out = app::matrix_check({});
  CHECK(out.exit_code == core::ExitCode::ok);
  CHECK(out.json["ok"] == true);
  CHECK(out.json["version"] == "2026.11.1");
  // bevfusion, uniad, bevformer, uniad-2.0, smoke, mmdet3d-1.4 and the torch 2.8 ports
  // bevfusion-torch2, uniad-torch2, bevformer-torch2
  CHECK(out.json["counts"]["profiles"] == 9);
}

TEST_CASE("matrix show lists versions x variants with the rules touching each") {
  ::unsetenv("BEVENV_MATRIX_PATH");
  const auto out = app::matrix_show({{}, "Torch"});
  CHECK(out.json["package"] == "torch");
  bool found = false;
  for (const auto& version : out.json["versions"]) {
    if (version["version"] == "1.10.1+cu113") {
      found = true;
      CHECK(version["cuda"] == "11.3");
      const auto rules = version["rules"].get<std::vector<std::string>>();
      CHECK(std::find(rules.begin(), rules.end(), "setuptools-distutils-version") != rules.end());
    }
  }
  CHECK(found);
  CHECK(all_text(out).find("1.10.1+cu113") != std::string::npos);
  CHECK_THROWS_AS(app::matrix_show({{}, "torchh"}), core::Error);
}

TEST_CASE("matrix show suggests the package a mistyped or shortened name means") {
  ::unsetenv("BEVENV_MATRIX_PATH");
  const auto hint_for = [](const std::string& name) {
    const auto e = testing::thrown_error([&] { app::matrix_show({{}, name}); });
    return e ? e->hint() : std::string("(no error)");
  };
  CHECK(hint_for("torchh") == "did you mean `torch`?");
  CHECK(hint_for("scikitlearn") == "did you mean `scikit-learn`?");
  CHECK(hint_for("mmcvfull") == "did you mean `mmcv-full`?");
  CHECK(hint_for("opencv") == "did you mean `opencv-python`?");
  CHECK(hint_for("nuscenes") == "did you mean `nuscenes-devkit`?");
  CHECK(hint_for("nuscenes-dev") == "did you mean `nuscenes-devkit`?");
  CHECK(hint_for("zzz") == "`bevenv matrix show` lists every package in the matrix");
}

TEST_CASE("matrix show without a package lists every package, and names that list in its hint") {
  ::unsetenv("BEVENV_MATRIX_PATH");
  const auto m = app::load_matrix_or_throw({});
  const auto out = app::matrix_show({});
  const auto& listed = out.json["packages"];
  REQUIRE(listed.size() == m.packages.size());
  std::size_t versions = 0;
  for (const auto& entry : listed) {
    const auto* package = m.find_package(entry["name"].get<std::string>());
    REQUIRE(package != nullptr);
    CHECK(entry["versions"] == package->versions.size());
    CHECK(entry["curated"].get<std::size_t>() <= package->versions.size());
    CHECK(entry["newest"] == package->versions.back().version.to_string());
    versions += package->versions.size();
  }
  const std::string text = all_text(out);
  CHECK(text.find(std::to_string(m.packages.size()) + " packages, " + std::to_string(versions) +
                  " versions") != std::string::npos);
  // torch has curated variants beside the generated releases; absl-py only generated ones.
  for (const auto& entry : listed) {
    if (entry["name"] == "torch") CHECK(entry["curated"].get<std::size_t>() > 0);
    if (entry["name"] == "absl-py") CHECK(entry["curated"] == 0);
  }
  const auto unknown = testing::thrown_error([] { app::matrix_show({{}, "nosuchpackage"}); });
  REQUIRE(unknown.has_value());
  CHECK(unknown->code() == core::ExitCode::bad_input);
  CHECK(unknown->hint().find("`bevenv matrix show`") != std::string::npos);
}

TEST_CASE("matrix rules lists a sourced rule for each version-preventable field failure") {
  ::unsetenv("BEVENV_MATRIX_PATH");
  const auto out = app::matrix_rules({});
  const auto covered = out.json["failures_covered"].get<std::vector<std::string>>();
  // F2 setuptools, F3 yapf, F4 torchpack, F9 torch 2 with BEVFusion, F10 SASS for the GPU, and
  // the catalogue entries whose fix a rule takes (numpy's aliases, Pillow, protobuf, networkx's
  // `fractions.gcd` and trimesh's `.node`).
  CHECK(std::set<std::string>(covered.begin(), covered.end()) ==
        std::set<std::string>{"F2", "F3", "F4", "F9", "F10", "networkx-fractions-gcd",
                              "numpy-aliases", "pillow-antialias", "protobuf-descriptors",
                              "trimesh-networkx"});
  for (const auto& rule : out.json["rules"]) CHECK(!rule["sources"].empty());
  // A failure id the catalogue does not have is bad input, with the id it most likely meant.
  const auto unknown = testing::thrown_error([] { app::matrix_rules({{}, "f3"}); });
  REQUIRE(unknown.has_value());
  CHECK(unknown->code() == core::ExitCode::bad_input);
  CHECK(unknown->hint() == "did you mean `F3`?");
  CHECK_THROWS_AS(app::matrix_rules({{}, "no-such-failure-at-all"}), core::Error);
  // A known failure that no pin prevents lists no rule, and that is no error.
  CHECK(app::matrix_rules({{}, "F1"}).json["rules"].empty());
  const auto only_f3 = app::matrix_rules({{}, "F3"});
  CHECK(only_f3.json["rules"].size() == 2);
}

TEST_CASE("BEVENV_MATRIX_PATH splits on colons and skips empty entries") {
  const auto dirs = app::split_matrix_path("/a::/b:");
  CHECK(dirs == std::vector<std::filesystem::path>{"/a", "/b"});
}

TEST_CASE("a matrix directory named twice is read once, where it comes last") {
  const auto dir = std::filesystem::temp_directory_path() / "bevenv-overlay-twice";
  std::filesystem::create_directories(dir);
  ::setenv("BEVENV_MATRIX_PATH", (dir.string() + ":/nonexistent-b").c_str(), 1);
  app::MatrixOptions options;
  options.overlays = {dir / ".", "/nonexistent-c"};
  const auto overlays = app::matrix_overlays(options);
  ::unsetenv("BEVENV_MATRIX_PATH");
  REQUIRE(overlays.size() == 3);
  CHECK(overlays[0] == "/nonexistent-b");
  CHECK(overlays[1] == dir / ".");
  CHECK(overlays[2] == "/nonexistent-c");
}

TEST_CASE("matrix check of a directory also named by BEVENV_MATRIX_PATH reads it once") {
  // As `bevenv matrix check "$XDG_DATA_HOME/bevenv/observed"`, a directory bevenv also reads by
  // itself: its overlays are listed, and so loaded, once.
  const auto dir = std::filesystem::temp_directory_path() / "bevenv-check-twice";
  std::filesystem::create_directories(dir);
  ::setenv("BEVENV_MATRIX_PATH", dir.string().c_str(), 1);
  app::MatrixCheckOptions options;
  options.dirs = {dir};
  const auto out = app::matrix_check(options);
  ::unsetenv("BEVENV_MATRIX_PATH");
  CHECK(out.exit_code == core::ExitCode::ok);
  REQUIRE(out.json["overlays"].size() == 1);
  CHECK(out.json["overlays"][0] == dir.generic_string());
}
