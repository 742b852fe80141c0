// `bevenv doctor --launcher`: prints the launch line that fans bevenv-probe out over the
// cluster, or (with --run) runs it here and turns rank 0's aggregate into doctor lines.
#include "bevenv/app/doctor_cluster.hpp"

#include "bevenv/core/subprocess.hpp"
#include "doctor_cluster_text.hpp"

namespace bevenv::app {
namespace {

using json = nlohmann::json;

// Rank 0 spends at most one timeout on hellos, one on the NCCL id and two on reports; the
// launcher needs time of its own to start and stop the ranks.
constexpr auto kLauncherSlack = std::chrono::seconds(120);

bool has_placeholder(const std::vector<std::string>& argv) {
  for (const auto& arg : argv) {
    if (arg.find(kMasterPlaceholder) != std::string::npos || arg == kHostfilePlaceholder)
      return true;
  }
  return false;
}

std::string tail(const std::string& text, std::size_t lines) {
  std::size_t start = text.size();
  for (std::size_t seen = 0; start > 0 && seen <= lines; --start) {
    if (text[start - 1] == '\n') ++seen;
  }
  return text.substr(start);
}

void print_only(const LaunchOptions& options, const std::vector<std::string>& argv,
                CommandOutput& output) {
  const std::string where = options.launcher == "torchrun" && options.nodes > 1
                                ? "on each of the " + std::to_string(options.nodes) + " nodes"
                            : options.launcher == "srun" ? "inside an allocation (salloc/sbatch)"
                                                         : "on the first node";
  output.add("run " + where + ":");
  output.add(shell_line(argv), Mark::none, 1);
  if (has_placeholder(argv)) {
    output.hint(options.launcher == "mpirun"
                    ? "set MASTER_ADDR to the first host and list the nodes in `hostfile` "
                      "(`host slots=" +
                          std::to_string(options.gpus_per_node) + "`)"
                    : "set MASTER_ADDR to the first node's address on every node");
  }
  output.hint("rank 0 prints one JSON report; ranks wait " +
              std::to_string(options.timeout.count()) + " s for each other (`--rank-timeout`)");
}

}  // namespace

CommandOutput doctor_launch(const LaunchOptions& options) {
  const std::vector<std::string> argv = doctor_launch_argv(options);
  CommandOutput output;
  output.json["launch"] = {{"launcher", options.launcher},
                           {"nodes", options.nodes},
                           {"gpus_per_node", options.gpus_per_node},
                           {"argv", argv},
                           {"line", shell_line(argv)}};
  if (!options.run) {
    print_only(options, argv, output);
    return output;
  }
  if (has_placeholder(argv)) {
    throw core::Error(core::ExitCode::bad_input,
                      "`--run` needs the first node's address and the node list",
                      "pass the master address and hosts, or run the printed line yourself");
  }
  if (options.launcher == "torchrun" && options.nodes > 1) {
    throw core::Error(core::ExitCode::bad_input,
                      "`--run` with torchrun starts only this node's ranks",
                      "run the printed line on each node, or use `--launcher srun`/`mpirun`");
  }
  core::ProcessOptions process;
  process.timeout = 4 * options.timeout + kLauncherSlack;
  const core::ProcessResult result = core::run_process(argv, process);
  output.json["launch"]["exit_code"] = result.exit_code;
  output.json["launch"]["timed_out"] = result.timed_out;
  if (result.spawn_failed) {
    throw core::Error(core::ExitCode::failure, "cannot run `" + argv.front() + "`",
                      "is " + options.launcher + " installed and on PATH?");
  }
  const auto aggregate = find_aggregate(result.out);
  if (!aggregate) {
    output.exit_code = core::ExitCode::failure;
    output.add(result.timed_out
                   ? "`" + argv.front() + "` did not finish within " +
                         std::to_string(process.timeout.count() / 1000) + " s and was stopped"
                   : "`" + argv.front() + "` exited " + std::to_string(result.exit_code) +
                         " without rank 0's report",
               Mark::problem);
    for (std::string rest = tail(result.err, 12); !rest.empty();) {
      const auto newline = rest.find('\n');
      output.add(rest.substr(0, newline), Mark::none, 1).is_hint = true;
      rest = newline == std::string::npos ? "" : rest.substr(newline + 1);
    }
    return output;
  }
  output.json["aggregate"] = *aggregate;
  const matrix::Matrix matrix = load_matrix_or_throw(options.matrix);
  if (!render_aggregate(*aggregate, &matrix, output)) {
    output.exit_code = core::ExitCode::problem_found;
  }
  return output;
}

}  // namespace bevenv::app
