#pragma once
// Each command file registers its subcommand and, when chosen, leaves the action to run.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bevenv/app/matrix_source.hpp"
#include "bevenv/app/output.hpp"
#include "bevenv/app/project_file.hpp"

namespace bevenv::cli {

struct GlobalOptions {
  bool json = false;
  int verbose = 0;
  bool quiet = false;
  std::vector<std::string> matrix_overlays;  // --matrix DIR (repeatable)
};

using Action = std::function<app::CommandOutput()>;

// The matrix every command loads: the embedded one with the `--matrix` overlays given.
inline app::MatrixOptions matrix_options(const GlobalOptions& global) {
  app::MatrixOptions options;
  for (const auto& dir : global.matrix_overlays) options.overlays.emplace_back(dir);
  return options;
}

// A subcommand with the summary and help footer command_help.cpp holds for it
// (`matrix show` under `matrix`).
CLI::App* add_command(CLI::App& parent, const std::string& name);

// `--lockfile FILE`, as every command that reads a lock takes it; lockfile_or_default() then
// resolves an empty one.
inline CLI::Option* add_lockfile_option(CLI::App& command, std::string& lockfile) {
  return command
      .add_option("--lockfile", lockfile,
                  "Lockfile to read (default: `bevenv.toml`'s `lockfile`, else bevenv.lock)")
      ->type_name("FILE");
}

// An option that takes one of `words`: its help lists them (`a, b or c`) from the list the check
// uses, so the two cannot drift apart.
inline CLI::Option* add_choice(CLI::App& command, const std::string& name, std::string& value,
                               const std::vector<std::string>& words) {
  std::string help;
  for (std::size_t i = 0; i < words.size(); ++i) {
    help += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  }
  return command.add_option(name, value, help)->check(CLI::IsMember(words));
}

// An option that may be given many times, each time with one `value_name` (`--gpu sm_XY ...`):
// its help says so the same way everywhere.
inline CLI::Option* add_repeatable(CLI::App& command, const std::string& name,
                                   std::vector<std::string>& values, const std::string& value_name,
                                   const std::string& help) {
  return command.add_option(name, values, help + " (repeatable)")->type_name(value_name);
}

// `--lockfile` as given, else the lock `bevenv.toml` names, else `bevenv.lock`. Called inside an
// action, not while parsing, so that a broken `bevenv.toml` is reported as bad input.
inline std::filesystem::path lockfile_or_default(const std::string& given) {
  return given.empty() ? app::default_lockfile() : std::filesystem::path(given);
}

// Registers `matrix check|show|rules`.
void add_matrix_commands(CLI::App& root, const GlobalOptions& global, Action& action);
// Registers `lock`, `why` and `export`.
void add_lock_commands(CLI::App& root, const GlobalOptions& global, Action& action);
// Registers `sync` (src/cli/sync_cli.cpp).
void add_sync_commands(CLI::App& root, const GlobalOptions& global, Action& action);
// Registers `doctor` (src/cli/doctor_cli.cpp).
void add_doctor_commands(CLI::App& root, const GlobalOptions& global, Action& action);

}  // namespace bevenv::cli
