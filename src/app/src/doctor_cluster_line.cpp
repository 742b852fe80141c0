// The launch line of `bevenv doctor --launcher`: the cluster's own launcher fans
// `bevenv-probe --rank` out, one process per GPU.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <set>

#include "bevenv/app/doctor_cluster.hpp"
#include "doctor_cluster_text.hpp"

extern char** environ;

namespace bevenv::app {
namespace {

constexpr int kMaxNodes = 100000;
constexpr int kMaxGpusPerNode = 64;

core::Error bad_input(std::string message, std::string hint) {
  return core::Error(core::ExitCode::bad_input, std::move(message), std::move(hint));
}

// NCCL_* variables set here: mpirun forwards only what `-x` names (torchrun and srun pass the
// whole environment), and the doctor must see the settings the job will really run with.
std::vector<std::string> nccl_variables_set() {
  std::set<std::string> names;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto equals = text.find('=');
    if (text.rfind("NCCL_", 0) == 0 && equals != std::string::npos) {
      names.insert(text.substr(0, equals));
    }
  }
  return {names.begin(), names.end()};
}

std::vector<std::string> probe_args(const LaunchOptions& options, const std::string& master) {
  const std::string probe = options.probe.empty() ? "bevenv-probe" : options.probe.string();
  std::vector<std::string> args{probe, "--rank", "--rank-timeout",
                                std::to_string(options.timeout.count())};
  if (!master.empty()) {
    args.insert(args.end(), {"--master", master});
  }
  if (!options.lockfile.empty()) args.insert(args.end(), {"--lockfile", options.lockfile.string()});
  if (!options.python.empty()) args.insert(args.end(), {"--python", options.python.string()});
  if (options.no_collective) args.push_back("--no-collective");
  return args;
}

std::string master_for(const LaunchOptions& options) {
  if (!options.master_addr.empty()) return options.master_addr;
  if (options.launcher == "mpirun" && !options.hosts.empty()) return options.hosts.front();
  if (options.nodes == 1) return "127.0.0.1";
  return kMasterPlaceholder;
}

}  // namespace

std::vector<std::string> doctor_launch_argv(const LaunchOptions& options) {
  if (options.launcher != "torchrun" && options.launcher != "srun" &&
      options.launcher != "mpirun") {
    throw bad_input("unknown launcher `" + options.launcher + "`",
                    "use `--launcher torchrun`, `--launcher srun` or `--launcher mpirun`");
  }
  if (options.nodes < 1 || options.nodes > kMaxNodes) {
    throw bad_input(
        "`--nodes` wants a positive number of nodes, got `" + std::to_string(options.nodes) + "`",
        "count the machines, e.g. `--nodes 2`");
  }
  if (options.gpus_per_node < 1 || options.gpus_per_node > kMaxGpusPerNode) {
    throw bad_input(
        "`--gpus-per-node` wants 1 to 64, got `" + std::to_string(options.gpus_per_node) + "`",
        "one process runs per GPU, e.g. `--gpus-per-node 8`");
  }
  if (options.master_port < 1 || options.master_port > 65534) {
    throw bad_input("the master port `" + std::to_string(options.master_port) +
                        "` is not a TCP port below 65535",
                    "the rendezvous uses the port above it");
  }
  if (options.timeout.count() < 1) {
    throw bad_input("the rank timeout must be at least 1 s", "e.g. `--timeout 120`");
  }
  if (!options.hosts.empty() && static_cast<int>(options.hosts.size()) != options.nodes) {
    throw bad_input(std::to_string(options.hosts.size()) + " hosts given for `--nodes " +
                        std::to_string(options.nodes) + "`",
                    "list one host per node, rank 0's first");
  }
  const std::string nodes = std::to_string(options.nodes);
  const std::string gpus = std::to_string(options.gpus_per_node);
  const std::string port = std::to_string(options.master_port);
  std::vector<std::string> argv;
  std::vector<std::string> probe;
  if (options.launcher == "torchrun") {
    argv = {"torchrun", "--nnodes", nodes, "--nproc-per-node", gpus};
    if (options.nodes == 1) {
      argv.insert(argv.end(), {"--master-addr", "127.0.0.1", "--master-port", port});
    } else {
      argv.insert(argv.end(), {"--rdzv-backend", "c10d", "--rdzv-endpoint",
                               master_for(options) + ":" + port, "--rdzv-id", "bevenv-doctor"});
    }
    argv.push_back("--no-python");
    // torchrun hands every worker MASTER_ADDR and MASTER_PORT; the probe reads them.
    probe = probe_args(options, "");
  } else if (options.launcher == "srun") {
    argv = {"srun", "--nodes",         nodes, "--ntasks-per-node",
            gpus,   "--gpus-per-node", gpus,  "--kill-on-bad-exit=0"};
    // The master is the first host of SLURM_STEP_NODELIST; the port is fixed here so that
    // several ranks agree without MASTER_PORT.
    probe = probe_args(options, "");
    probe.insert(probe.begin() + 2, {"--rendezvous-port", std::to_string(options.master_port + 1)});
  } else {
    argv = {"mpirun", "-np", std::to_string(options.nodes * options.gpus_per_node), "--map-by",
            "ppr:" + gpus + ":node"};
    if (::geteuid() == 0) argv.push_back("--allow-run-as-root");
    if (!options.hosts.empty()) {
      std::string list;
      for (const auto& host : options.hosts) list += (list.empty() ? "" : ",") + host + ":" + gpus;
      argv.insert(argv.end(), {"-H", list});
    } else if (options.nodes > 1) {
      argv.insert(argv.end(), {"--hostfile", kHostfilePlaceholder});
    }
    for (const auto& name : nccl_variables_set()) argv.insert(argv.end(), {"-x", name});
    argv.insert(argv.end(), {"-x", "PATH", "-x", "LD_LIBRARY_PATH"});
    probe = probe_args(options, master_for(options) + ":" + port);
  }
  argv.insert(argv.end(), probe.begin(), probe.end());
  return argv;
}

}  // namespace bevenv::app
