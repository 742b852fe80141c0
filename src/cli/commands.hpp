#pragma once
// Each command file registers its subcommand and, when chosen, leaves the action to run.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "bevenv/app/output.hpp"

namespace bevenv::cli {

struct GlobalOptions {
  bool json = false;
  int verbose = 0;
  bool quiet = false;
  std::vector<std::string> matrix_overlays;  // --matrix DIR (repeatable)
};

using Action = std::function<app::CommandOutput()>;

// Registers `matrix check|show|rules`.
void add_matrix_commands(CLI::App& root, const GlobalOptions& global, Action& action);
// Registers `lock`, `why` and `export`.
void add_lock_commands(CLI::App& root, const GlobalOptions& global, Action& action);
// Registers `sync` (src/cli/sync_cli.cpp).
void add_sync_commands(CLI::App& root, const GlobalOptions& global, Action& action);
// Registers `doctor` (src/cli/doctor_cli.cpp).
void add_doctor_commands(CLI::App& root, const GlobalOptions& global, Action& action);

}  // namespace bevenv::cli
