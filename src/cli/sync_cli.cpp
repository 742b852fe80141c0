// `bevenv sync`: argv to app::SyncOptions.
#include "bevenv/app/sync.hpp"
#include "commands.hpp"

namespace bevenv::cli {

void add_sync_commands(CLI::App& root, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<app::SyncOptions>();
  auto venv = std::make_shared<std::string>();
  auto lockfile = std::make_shared<std::string>();
  auto installer = std::make_shared<std::string>("pip");
  auto python = std::make_shared<std::string>();
  auto no_doctor = std::make_shared<bool>(false);
  CLI::App* sync =
      root.add_subcommand("sync", "Make a virtual environment exactly the lock (hash-checked)");
  sync->footer(
      "Examples:\n"
      "  bevenv sync --venv .venv             create or fix .venv, then doctor's env checks\n"
      "  bevenv sync --venv .venv --dry-run   print the plan; exit 1 when .venv differs\n"
      "Exit codes: 0 the venv matches the lock, 1 it differs (--dry-run, or after installing),\n"
      "2 bad input (no lockfile, no interpreter for the lock's Python), 3 the installer failed.");
  sync->add_option("--venv", *venv, "The venv to sync (created when it does not exist)")
      ->required()
      ->type_name("PATH");
  add_lockfile_option(*sync, *lockfile);
  sync->add_flag("--dry-run", options->dry_run, "Print the plan, change nothing");
  sync->add_option("--installer", *installer, "pip (the venv's own) or uv")
      ->capture_default_str()
      ->check(CLI::IsMember({"pip", "uv"}));
  sync->add_option("--python", *python,
                   "Interpreter for a new venv: a path or a version (default: the lock's)")
      ->type_name("PATH|X.Y");
  sync->add_flag("--no-doctor", *no_doctor, "Skip doctor's environment checks afterwards");
  sync->callback([&global, &action, options, venv, lockfile, installer, python, no_doctor] {
    options->venv = *venv;
    options->installer = *installer == "uv" ? app::Installer::uv : app::Installer::pip;
    if (!python->empty()) options->python = *python;
    options->doctor = !*no_doctor;
    for (const auto& dir : global.matrix_overlays) options->matrix.overlays.emplace_back(dir);
    action = [options, lockfile] {
      options->lockfile = lockfile_or_default(*lockfile);
      return app::sync(*options);
    };
  });
}

}  // namespace bevenv::cli
