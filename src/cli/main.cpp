#include <unistd.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "bevenv/app/version_info.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/util/exit_time.hpp"
#include "bevenv/util/terminal.hpp"
#include "build_image_cli.hpp"
#include "commands.hpp"
#include "completion.hpp"
#include "printer.hpp"
#include "usage_error.hpp"

namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 ok, 1 a problem was found (unsatisfiable, doctor finding, stale lock),\n"
    "2 bad usage or bad input, 3 internal or external failure.";

bevenv::cli::PrinterOptions printer_options(const bevenv::cli::GlobalOptions& global) {
  bevenv::cli::PrinterOptions options;
  options.json = global.json;
  options.color = !global.json && bevenv::util::terminal::styled(STDOUT_FILENO);
  if (global.quiet) options.verbosity = bevenv::app::Verbosity::quiet;
  if (global.verbose > 0) options.verbosity = bevenv::app::Verbosity::verbose;
  return options;
}

int run(int argc, char** argv) {
  // The process ends when the command does: what it loaded is left to the operating system.
  bevenv::util::keep_values_until_exit(true);
  bevenv::cli::GlobalOptions global;
  CLI::App root{"bevenv: reproducible environments for GPU perception stacks", "bevenv"};
  root.footer(kExitCodes);
  root.set_version_flag("--version", bevenv::app::version_line());
  root.require_subcommand(1);
  root.fallthrough();
  root.add_flag("--json", global.json, "Print machine-readable JSON on stdout");
  root.add_flag("-v,--verbose", global.verbose, "Show more detail");
  root.add_flag("-q,--quiet", global.quiet, "Print only errors");
  root.add_option("--matrix", global.matrix_overlays,
                  "Matrix overlay directory (repeatable; also BEVENV_MATRIX_PATH)")
      ->type_name("DIR");

  bevenv::cli::Action action;
  bevenv::cli::add_lock_commands(root, global, action);
  bevenv::cli::add_sync_commands(root, global, action);
  bevenv::cli::add_matrix_commands(root, global, action);
  bevenv::cli::add_build_image_commands(root, global, action);
  bevenv::cli::add_doctor_commands(root, global, action);
  // Last: its script is walked from the finished tree.
  bevenv::cli::completion::add_completion_commands(root, global, action);

  // Bare `bevenv`: the help, which is what its user is looking for (exit 2: nothing ran).
  if (argc <= 1) {
    std::cout << root.help();
    return static_cast<int>(bevenv::core::ExitCode::bad_input);
  }
  try {
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return root.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return root.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return root.exit(e);
  } catch (const CLI::ParseError& e) {
    const bevenv::cli::UsageError usage =
        bevenv::cli::describe_usage_error(root, e, std::vector<std::string>(argv + 1, argv + argc));
    const bevenv::cli::Printer printer(printer_options(global));
    printer.print_error(usage.message, usage.hint, bevenv::core::ExitCode::bad_input);
    return static_cast<int>(bevenv::core::ExitCode::bad_input);
  }

  const bevenv::cli::Printer printer(printer_options(global));
  try {
    const bevenv::app::CommandOutput output = action();
    printer.print(output);
    return static_cast<int>(output.exit_code);
  } catch (const bevenv::core::Error& e) {
    printer.print_error(e);
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    printer.print_error(std::string("internal error: ") + e.what(),
                        "please report this with the command you ran",
                        bevenv::core::ExitCode::failure);
    return static_cast<int>(bevenv::core::ExitCode::failure);
  }
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
