// `bevenv sync`: argv to app::SyncOptions.
#include "bevenv/app/sync.hpp"
#include "commands.hpp"

namespace bevenv::cli {

namespace {

// What `sync` reads from argv before it becomes app::SyncOptions.
struct SyncArguments {
  app::SyncOptions options;
  std::string venv, lockfile, installer = "pip", python;
  bool no_doctor = false;
};

}  // namespace

void add_sync_commands(CLI::App& root, const GlobalOptions& global, Action& action) {
  auto args = std::make_shared<SyncArguments>();
  CLI::App* sync = add_command(root, "sync");
  sync->add_option("--venv", args->venv, "The venv to sync (created when it does not exist)")
      ->required()
      ->type_name("PATH");
  add_lockfile_option(*sync, args->lockfile);
  sync->add_flag("--dry-run", args->options.dry_run, "Print the plan, change nothing");
  sync->add_option("--installer", args->installer, "pip (the venv's own) or uv")
      ->capture_default_str()
      ->check(CLI::IsMember({"pip", "uv"}));
  sync->add_option("--python", args->python,
                   "Interpreter for a new venv: a path or a version (default: the lock's)")
      ->type_name("PATH|X.Y");
  sync->add_flag("--no-doctor", args->no_doctor, "Skip doctor's environment checks afterwards");
  sync->callback([&global, &action, args] {
    app::SyncOptions& options = args->options;
    options.venv = args->venv;
    options.installer = args->installer == "uv" ? app::Installer::uv : app::Installer::pip;
    if (!args->python.empty()) options.python = args->python;
    options.doctor = !args->no_doctor;
    for (const auto& dir : global.matrix_overlays) options.matrix.overlays.emplace_back(dir);
    action = [args] {
      args->options.lockfile = lockfile_or_default(args->lockfile);
      return app::sync(args->options);
    };
  });
}

}  // namespace bevenv::cli
