// The sync plan (src/app/src/sync_plan.cpp, sync_installed.cpp): fake venvs on disk with
// made-up `*.dist-info` trees, against small locks; no Python, no network.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "bevenv/app/sync.hpp"
#include "bevenv/core/error.hpp"
#include "sync_venv.hpp"

namespace fs = std::filesystem;
namespace app = bevenv::app;
namespace lf = bevenv::lockfiles;
using app::ChangeKind;

namespace {

// A directory that looks like `python3.8 -m venv` made it, with the given distributions.
class FakeVenv {
 public:
  // With these (name, version) distributions installed.
  explicit FakeVenv(std::initializer_list<std::pair<std::string, std::string>> installed = {}) {
    root_ = fs::temp_directory_path() /
            ("bevenv-sync-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(root_);
    fs::create_directories(site());
    std::ofstream(root_ / "pyvenv.cfg") << "home = /usr/bin\nversion = 3.8.18\n";
    for (const auto& [name, version] : installed) dist_info(name, version);
  }
  ~FakeVenv() { fs::remove_all(root_); }
  fs::path site() const { return root_ / "lib" / "python3.8" / "site-packages"; }
  const fs::path& root() const { return root_; }
  // `name-version.dist-info/METADATA`, spelled as wheels spell it.
  void dist_info(const std::string& name, const std::string& version) const {
    const fs::path dir = site() / (name + "-" + version + ".dist-info");
    fs::create_directories(dir);
    std::ofstream(dir / "METADATA") << "Metadata-Version: 2.1\nName: " << name
                                    << "\nVersion: " << version << "\n\nName: not-a-header\n";
  }

 private:
  fs::path root_;
  static inline int counter_ = 0;
};

lf::Package pinned(const std::string& name, const std::string& version, bool hashed = true) {
  lf::Package p;
  p.name = name;
  p.version = version;
  lf::Artifact a;
  a.filename = name + "-" + version + "-py3-none-any.whl";
  a.url = "https://files.pythonhosted.org/packages/" + a.filename;
  if (hashed) a.sha256 = std::string(64, 'a');
  p.artifacts = {a};
  return p;
}

lf::Lockfile small_lock() {
  lf::Lockfile lock;
  lock.target.python = "3.8.18";
  lock.target.platform = "linux_x86_64";
  lock.packages = {pinned("idna", "3.7"), pinned("packaging", "23.2"), pinned("yapf", "0.40.1")};
  return lock;
}

const app::PlannedChange* find(const app::SyncPlan& plan, const std::string& name) {
  for (const auto& c : plan.changes)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("sync reads dist-info and egg-info metadata, not directory names") {
  const FakeVenv venv({{"typing_extensions", "4.7.1"}});
  fs::create_directories(venv.site() / "mmcv.egg-info");
  std::ofstream(venv.site() / "mmcv.egg-info" / "PKG-INFO") << "Name: mmcv\nVersion: 1.4.0\n";
  std::ofstream(venv.site() / "old_style.egg-info") << "Name: old-style\nVersion: 0.1\n";
  fs::create_directories(venv.site() / "numpy");             // a package, no metadata
  fs::create_directories(venv.site() / "broken.dist-info");  // no METADATA: ignored
  const auto installed = app::read_installed(venv.site());
  REQUIRE(installed.size() == 3);
  CHECK(installed[0].name == "mmcv");
  CHECK(installed[1].name == "old-style");
  CHECK(installed[2].name == "typing_extensions");
  CHECK(installed[2].version == "4.7.1");
  CHECK(app::site_packages_of(venv.root()) == venv.site());
  CHECK(app::venv_python_version(venv.root()) == "3.8.18");
}

TEST_CASE("sync refuses a directory that is not a venv") {
  const fs::path dir = fs::temp_directory_path() / "bevenv-sync-not-a-venv";
  fs::create_directories(dir);
  CHECK_THROWS_AS(app::site_packages_of(dir), bevenv::core::Error);
  fs::remove_all(dir);
}

TEST_CASE("an empty venv gets every locked package, hash-checked; pip and setuptools stay") {
  const FakeVenv venv({{"pip", "23.0.1"}, {"setuptools", "56.0.0"}});
  const auto plan = app::plan_sync(small_lock(), app::read_installed(venv.site()));
  REQUIRE(plan.changes.size() == 3);
  for (const auto& c : plan.changes) {
    CHECK(c.kind == ChangeKind::install);
    CHECK(c.via == "hashed");
  }
  CHECK(plan.kept == std::vector<std::string>{"pip", "setuptools"});
  CHECK(plan.unchanged == 0);
  CHECK(app::plan_summary(plan) == "install 3");
}

TEST_CASE("drift: an upgrade, a downgrade, an extra and a missing package") {
  const FakeVenv venv({
      {"pip", "23.0.1"},
      {"wheel", "0.41.0"},
      {"idna", "3.7"},        // as locked
      {"Packaging", "24.0"},  // newer than the lock: downgrade
      {"six", "1.16.0"},      // not locked: remove
      {"yapf", "0.32.0"},     // older: upgrade
  });
  auto lock = small_lock();
  lock.packages.push_back(pinned("platformdirs", "4.3.6"));  // missing: install
  const auto plan = app::plan_sync(lock, app::read_installed(venv.site()));
  CHECK(plan.unchanged == 1);
  REQUIRE(plan.changes.size() == 4);
  CHECK(plan.changes.front().kind == ChangeKind::remove);  // removals run first
  CHECK(plan.changes.front().name == "six");
  CHECK(find(plan, "packaging")->kind == ChangeKind::downgrade);
  CHECK(find(plan, "packaging")->installed == "24.0");
  CHECK(find(plan, "yapf")->kind == ChangeKind::upgrade);
  CHECK(find(plan, "platformdirs")->kind == ChangeKind::install);
  CHECK(find(plan, "pip") == nullptr);
  CHECK(find(plan, "wheel") == nullptr);
  CHECK(!plan.in_sync());
  CHECK(app::plan_summary(plan) ==
        "install 1, upgrade 1 (yapf 0.32.0 → 0.40.1), downgrade 1 (packaging 24.0 → 23.2), "
        "remove 1 (six 1.16.0)");
}

TEST_CASE("setuptools is compared when the lock names it; a locked venv is in sync") {
  const FakeVenv venv({{"pip", "23.0.1"}, {"setuptools", "69.5.1"}});
  auto lock = small_lock();
  lock.packages.push_back(pinned("setuptools", "58.0.4"));
  for (const auto& p : small_lock().packages) venv.dist_info(p.name, p.version);
  auto plan = app::plan_sync(lock, app::read_installed(venv.site()));
  REQUIRE(plan.changes.size() == 1);
  CHECK(plan.changes[0].kind == ChangeKind::downgrade);
  CHECK(plan.changes[0].name == "setuptools");

  fs::remove_all(venv.site() / "setuptools-69.5.1.dist-info");
  venv.dist_info("setuptools", "58.0.4");
  plan = app::plan_sync(lock, app::read_installed(venv.site()));
  CHECK(plan.in_sync());
  CHECK(plan.unchanged == 4);
  CHECK(app::plan_summary(plan) == "nothing to do");
}

TEST_CASE("a local build tag matches the lock's variant; a false marker removes the package") {
  const FakeVenv venv({{"torch", "1.10.1+cu113"}, {"dataclasses", "0.8"}});
  lf::Lockfile lock = small_lock();
  lock.packages.clear();
  auto torch = pinned("torch", "1.10.1", false);
  torch.variant = "cu113";
  auto dataclasses = pinned("dataclasses", "0.8");
  dataclasses.markers = "python_version < \"3.7\"";
  lock.packages = {dataclasses, torch};
  const auto plan = app::plan_sync(lock, app::read_installed(venv.site()));
  CHECK(plan.unchanged == 1);
  CHECK(plan.behind_markers == std::vector<std::string>{"dataclasses"});
  REQUIRE(plan.changes.size() == 1);
  CHECK(plan.changes[0].kind == ChangeKind::remove);
  CHECK(plan.changes[0].name == "dataclasses");
}

TEST_CASE("packages without a sha256 go through the unhashed pass; another build is reinstalled") {
  const FakeVenv venv({{"torch", "1.10.1+cpu"}});
  lf::Lockfile lock = small_lock();
  lock.packages = {pinned("torch", "1.10.1+cu113", false)};
  const auto plan = app::plan_sync(lock, app::read_installed(venv.site()));
  REQUIRE(plan.changes.size() == 1);
  CHECK(plan.changes[0].kind == ChangeKind::reinstall);
  CHECK(plan.changes[0].via == "unhashed");
}

TEST_CASE("build steps: sdist and VCS builds run in lock order, command builds never") {
  // nuscenes-devkit installed by its sdist build, as locked.
  const FakeVenv venv({{"nuscenes-devkit", "1.1.9"}});
  lf::Lockfile lock = small_lock();
  lock.packages = {pinned("mmcv-full", "1.4.0"), pinned("nuscenes-devkit", "1.1.9"),
                   pinned("torchpack", "0.3.1"), pinned("mmdet3d", "0.17.1")};
  lf::BuildStep mmcv{"mmcv-full-sdist", {}, "mmcv-full", {}, {}, {}, {}, {}, "8.6"};
  mmcv.source = lock.packages[0].artifacts[0];
  lf::BuildStep nuscenes{"nuscenes-sdist", {}, "nuscenes-devkit", {}, {}, {}, {}, {}, ""};
  nuscenes.source = lock.packages[1].artifacts[0];
  lf::BuildStep torchpack{"torchpack-git", {}, "torchpack", {}, {}, {}, {}, {}, ""};
  torchpack.vcs = "git+https://github.com/mit-han-lab/torchpack.git@" + std::string(40, 'b');
  lf::BuildStep mmdet3d{"mmdet3d-develop", {}, "mmdet3d", {}, {}, {}, {}, {"pip install -e ."}, ""};
  lf::BuildStep ops{
      "bevfusion-ops", {"mmcv-full"}, "", {}, {}, {}, {}, {"python setup.py develop"}, ""};
  lock.builds = {torchpack, mmcv, nuscenes, mmdet3d, ops};
  const auto plan = app::plan_sync(lock, app::read_installed(venv.site()));
  REQUIRE(plan.builds.size() == 2);
  CHECK(plan.builds[0]->name == "torchpack-git");  // the lock's order, not the packages'
  CHECK(plan.builds[1]->name == "mmcv-full-sdist");
  CHECK(find(plan, "mmcv-full")->via == "build");
  CHECK(find(plan, "torchpack")->via == "build");
  CHECK(find(plan, "mmdet3d")->via == "none");
  CHECK(find(plan, "nuscenes-devkit") == nullptr);
  CHECK(plan.builds_not_run == std::vector<std::string>{"mmdet3d-develop", "bevfusion-ops"});
}

TEST_CASE("the interpreter for a new venv: the newest pyenv patch of the lock's minor") {
  const fs::path root =
      fs::temp_directory_path() / ("bevenv-sync-pyenv-" + std::to_string(::getpid()));
  for (const char* version : {"3.8.9", "3.8.18", "3.9.18", "3.8.x"}) {
    const fs::path bin = root / "versions" / version / "bin";
    fs::create_directories(bin);
    std::ofstream(bin / "python3.8") << "#!/bin/sh\n";
    fs::permissions(bin / "python3.8", fs::perms::owner_all);
  }
  ::setenv("PYENV_ROOT", root.c_str(), 1);
  // 3.8.18 beats 3.8.9 (versions, not strings); `3.8.x` is no version.
  CHECK(app::sync_detail::find_interpreter(std::nullopt, "3.8.20") ==
        root / "versions" / "3.8.18" / "bin" / "python3.8");
  CHECK_THROWS_AS(app::sync_detail::find_interpreter(std::string("/no/such/python"), "3.8.20"),
                  bevenv::core::Error);
  ::unsetenv("PYENV_ROOT");
  fs::remove_all(root);
}
