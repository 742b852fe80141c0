// PEP 751 export: the text against a golden file, read back by Python's own TOML parser
// (tomllib), and what the format cannot hold (command builds, files without a sha256).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bevenv/core/fs.hpp"
#include "bevenv/core/subprocess.hpp"
#include "bevenv/lockfiles/export.hpp"
#include "golden.hpp"
#include "sample_lock.hpp"

namespace fs = std::filesystem;
using namespace bevenv;
using namespace bevenv::lockfiles;

namespace {

nlohmann::json tomllib(const std::string& text) {
  const fs::path file = fs::temp_directory_path() / "bevenv-pylock-test.toml";
  core::write_file_atomic(file, text);
  const auto r = core::run_process(
      {"python3", "-c",
       "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))",
       file.string()});
  INFO(text);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// The sample lock plus an sdist build and a VCS build, the shapes a real BEVFusion lock has.
Lockfile lock_with_builds() {
  Lockfile lock = testing::sample_lock();
  Package nuscenes;
  nuscenes.name = "nuscenes_devkit";
  nuscenes.version = "1.1.9";
  nuscenes.source = {SourceKind::pypi, "https://pypi.org/simple"};
  const Artifact sdist{"https://files.pythonhosted.org/packages/nuscenes-devkit-1.1.9.tar.gz",
                       "nuscenes-devkit-1.1.9.tar.gz", testing::fake_sha("nuscenes"), 123};
  nuscenes.artifacts = {sdist};
  Package torchpack;
  torchpack.name = "torchpack";
  torchpack.version = "0.3.1";
  torchpack.source = {SourceKind::pypi, "https://pypi.org/simple"};
  lock.packages.push_back(nuscenes);
  lock.packages.push_back(torchpack);
  BuildStep from_sdist{
      "nuscenes-devkit-sdist", {"setuptools"}, "nuscenes_devkit", sdist, {}, {}, {}, {}, ""};
  BuildStep from_git{"torchpack-git", {"torch"}, "torchpack", {}, {}, {}, {}, {}, ""};
  from_git.vcs = "git+https://github.com/mit-han-lab/torchpack.git@" + std::string(40, 'a');
  lock.builds.insert(lock.builds.begin(), {from_sdist, from_git});
  return lock;
}

fs::path golden_path() {
  return fs::path(BEVENV_SOURCE_DIR) / "tests" / "unit" / "lockfiles" / "sample.pylock.toml";
}

}  // namespace

TEST_CASE("pylock export matches its golden file") {
  const PylockExport exported = export_pylock(lock_with_builds());
  CHECK_GOLDEN(golden_path(), exported.text);
}

TEST_CASE("pylock export: tomllib reads the PEP 751 fields") {
  const PylockExport exported = export_pylock(lock_with_builds());
  const nlohmann::json pylock = tomllib(exported.text);
  CHECK(pylock["lock-version"] == "1.0");
  CHECK(pylock["created-by"] == "bevenv");
  CHECK(pylock["requires-python"] == "==3.8.*");
  CHECK(pylock["environments"] ==
        nlohmann::json::array({"python_version == \"3.8\" and sys_platform == \"linux\" and "
                               "platform_machine == \"x86_64\""}));
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& p : pylock["packages"]) by_name[p["name"]] = p;
  REQUIRE(by_name.size() == 6);
  CHECK(exported.packages == 6);
  // Names are normalized; indexes are simple-API URLs only.
  CHECK(by_name.contains("typing-extensions"));
  CHECK(by_name["torch"]["index"] == "https://download.pytorch.org/whl/cu113");
  CHECK(by_name["torch"]["wheels"][0]["hashes"]["sha256"] == testing::fake_sha("torch"));
  CHECK(by_name["torch"]["wheels"][0]["size"] == 1821446045);
  CHECK(by_name["setuptools"]["index"] == "https://pypi.org/simple");
  CHECK(!by_name["mmcv-full"].contains("index"));  // a find-links page is no index
  CHECK(by_name["mmcv-full"]["marker"] == "python_version < \"3.9\"");
  CHECK(by_name["nuscenes-devkit"]["sdist"]["hashes"]["sha256"] == testing::fake_sha("nuscenes"));
  CHECK(!by_name["nuscenes-devkit"].contains("wheels"));
  // A source tree's version is not the file's to promise.
  CHECK(!by_name["torchpack"].contains("version"));
  CHECK(!by_name["torchpack"].contains("index"));
  CHECK(by_name["torchpack"]["vcs"]["commit-id"] == std::string(40, 'a'));
  CHECK(by_name["torchpack"]["vcs"]["url"] == "https://github.com/mit-han-lab/torchpack.git");
  CHECK(exported.build_isolation == std::vector<std::string>{"nuscenes_devkit", "torchpack"});
  // The project build has no pylock form: named, and kept under [tool.bevenv].
  REQUIRE(exported.left_out.size() == 1);
  CHECK(exported.left_out[0].name == "bevfusion-ops");
  CHECK(pylock["tool"]["bevenv"]["left-out"][0]["reason"] == "build step with commands");
}

TEST_CASE("pylock export: an sdist build with variables is left out with its file's URL") {
  const Lockfile lock = testing::with_mmcv_sdist_build();
  const PylockExport exported = export_pylock(lock);
  REQUIRE(exported.left_out.size() == 2);
  CHECK(exported.left_out[0].name == "mmcv-full");
  CHECK(exported.left_out[0].reason ==
        "installed by build `mmcv-full`, which sets variables for it (pylock cannot say so)");
  const nlohmann::json pylock = tomllib(exported.text);
  for (const auto& p : pylock["packages"]) CHECK(p["name"] != "mmcv-full");
  CHECK(pylock["tool"]["bevenv"]["left-out"][0]["url"] == lock.packages[3].artifacts[0].url);
}

TEST_CASE("pylock export: a file without sha256 is left out unless allowed") {
  Lockfile lock = testing::sample_lock();
  lock.packages[0].artifacts[0].sha256.reset();  // torch, as download.pytorch.org serves it
  const PylockExport strict = export_pylock(lock);
  CHECK(strict.packages == 3);
  REQUIRE(strict.left_out.size() == 2);
  CHECK(strict.left_out[0].name == "torch");
  CHECK(strict.left_out[0].reason == "no sha256 recorded");
  const nlohmann::json strict_toml = tomllib(strict.text);
  CHECK(strict_toml["tool"]["bevenv"]["left-out"][0]["url"] == lock.packages[0].artifacts[0].url);

  PylockOptions options;
  options.allow_unhashed = true;
  const PylockExport loose = export_pylock(lock, options);
  CHECK(loose.packages == 4);
  CHECK(loose.unhashed == std::vector<std::string>{"torch"});
  const nlohmann::json loose_toml = tomllib(loose.text);
  for (const auto& p : loose_toml["packages"])
    if (p["name"] == "torch") CHECK(p["wheels"][0]["hashes"].empty());
}

TEST_CASE("pylock export: a pin without a recorded file names the page it comes from") {
  Lockfile lock = testing::sample_lock();
  lock.packages[0].artifacts.clear();  // torch locked offline: `torch==1.10.1+cu113` from its page
  const PylockExport exported = export_pylock(lock);
  REQUIRE(!exported.left_out.empty());
  CHECK(exported.left_out[0].name == "torch");
  CHECK(exported.left_out[0].reason == "no file recorded");
  const nlohmann::json toml = tomllib(exported.text);
  CHECK(toml["tool"]["bevenv"]["left-out"][0]["source"] ==
        "https://download.pytorch.org/whl/cu113");
}
