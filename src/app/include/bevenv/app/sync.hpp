#pragma once
// `bevenv sync`: make a virtual environment exactly the lock. The plan (what to install,
// upgrade, downgrade or remove) is a pure function of the lock and the installed distributions,
// read from the venv's `*.dist-info` without starting Python.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/matrix_source.hpp"
#include "bevenv/app/output.hpp"
#include "bevenv/lockfiles/model.hpp"

namespace bevenv::app {

enum class Installer { pip, uv };

struct SyncOptions {
  std::filesystem::path venv;
  std::filesystem::path lockfile = "bevenv.lock";
  bool dry_run = false;
  Installer installer = Installer::pip;
  // Interpreter for a new venv: a path, or a version (`3.8`) looked up under pyenv and PATH;
  // default: the lock's Python minor.
  std::optional<std::string> python;
  bool doctor = true;  // run doctor's environment checks afterwards
  MatrixOptions matrix;
  std::optional<std::filesystem::path> probe;            // bevenv-probe, as doctor finds it
  std::optional<std::filesystem::path> self_executable;  // to find bevenv-probe beside bevenv
};

CommandOutput sync(const SyncOptions& options);

// ---- The plan, public so that tests can drive it with fake dist-info trees. ----

struct InstalledDist {
  std::string name;     // as its METADATA spells it
  std::string version;  // as installed, local tag included (`1.10.1+cu113`)
};

// The venv's `lib/python3.X/site-packages`; throws core::Error(bad_input) when `venv` is not one.
std::filesystem::path site_packages_of(const std::filesystem::path& venv);
// `3.8.18` from `pyvenv.cfg`; empty when it names none.
std::string venv_python_version(const std::filesystem::path& venv);
// Every `*.dist-info` and `*.egg-info` in `site_packages`, by normalized name.
std::vector<InstalledDist> read_installed(const std::filesystem::path& site_packages);

enum class ChangeKind { install, upgrade, downgrade, reinstall, remove };

struct PlannedChange {
  ChangeKind kind = ChangeKind::install;
  std::string name;       // the lock's spelling; the installed one for removals
  std::string installed;  // empty for installs
  std::string locked;     // empty for removals
  // How the change is made: `hashed` (pip --require-hashes), `unhashed` (URL pin without hash),
  // `build` (a build step of the lock), `uninstall`, or `none` (a build sync does not run).
  std::string via;
  std::string build;  // the build step's name when `via` is build or none
};

struct SyncPlan {
  std::vector<PlannedChange> changes;       // removals first, then lockfile order
  std::size_t unchanged = 0;                // locked packages already at their versions
  std::vector<std::string> behind_markers;  // locked packages whose marker is false here
  std::vector<std::string> kept;            // not locked, kept anyway (pip, setuptools, wheel)
  // Build steps to run, in lock order, and builds sync never runs (commands of the project).
  std::vector<const lockfiles::BuildStep*> builds;
  std::vector<std::string> builds_not_run;
  bool in_sync() const;  // nothing to change that sync can change
};

// Compares the lock with what is installed. Never removes pip; setuptools and wheel only change
// when the lock names them.
SyncPlan plan_sync(const lockfiles::Lockfile& lock, const std::vector<InstalledDist>& installed);

// `install 5, upgrade 1 (setuptools 56.0.0 → 59.8.0), remove 1 (six 1.16.0)`; `nothing to do`.
std::string plan_summary(const SyncPlan& plan);

}  // namespace bevenv::app
