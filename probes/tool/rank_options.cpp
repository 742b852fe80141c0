// The rank-mode command line, the per-rank report and the lock hash it carries.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>

#include "isolation.hpp"
#include "rank_run.hpp"

namespace bevenv::probe_tool {

namespace {

constexpr int kExitUsage = 2;

constexpr const char* kRankHelp =
    R"(bevenv-probe --rank: one process per GPU under the cluster's launcher; rank 0 prints the
aggregate JSON of every rank, the others print nothing on stdout and one line on stderr.

usage: bevenv-probe --rank [options]

  --master HOST:PORT      rank 0's host and the launcher's port (default: MASTER_ADDR and
                          MASTER_PORT; under Slurm the first host of SLURM_STEP_NODELIST)
  --rendezvous-port P     TCP port rank 0 listens on (default: master port + 1)
  --rank-timeout S        seconds to wait for ranks, reports and the all-reduce (default 60)
  --timeout S             seconds each local probe may take (default 30)
  --lock-hash HASH        this node's lock hash, compared across nodes
  --lockfile PATH         read the lock hash from PATH's `input_hash` line
  --python PATH           Python interpreter or environment to inspect (on local rank 0)
  --no-collective         skip the all-reduce (rendezvous and reports only)
  --min-busbw GBPS        name ranks whose all-reduce bus bandwidth is below GBPS

The rank, world size and local rank come from torchrun (RANK, WORLD_SIZE, LOCAL_RANK), Open MPI
(OMPI_COMM_WORLD_*), PMI (PMI_RANK, PMI_SIZE) or Slurm (SLURM_PROCID, SLURM_NTASKS,
SLURM_LOCALID). Exit status: 0 all ranks reported and agree; 1 a problem (named in the JSON);
2 bad command line or no launcher found.

example: torchrun --nproc-per-node 8 --no-python bevenv-probe --rank --lockfile bevenv.lock
)";

struct UsageError {
  std::string message;
};

std::chrono::milliseconds parse_seconds(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(seconds > 0) || seconds > 86400) {
    throw UsageError{"`" + flag + "` wants a number of seconds, got `" + text + "`"};
  }
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

RankOptions parse_rank_options(int argc, char** argv, bool& exit_now) {
  RankOptions options;
  const bool hooks = std::getenv("BEVENV_PROBE_TEST_HOOKS") != nullptr;
  auto value = [&](int& i, const std::string& flag) -> std::string {
    if (i + 1 >= argc) throw UsageError{"`" + flag + "` needs a value"};
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rank") continue;
    if (arg == "--help" || arg == "-h") {
      std::cout << kRankHelp;
      exit_now = true;
      return options;
    }
    if (arg == "--master") {
      options.flags.master = value(i, arg);
    } else if (arg == "--rendezvous-port") {
      const std::string text = value(i, arg);
      if (!std::regex_match(text, std::regex("[0-9]{1,5}")) || std::stoi(text) < 1 ||
          std::stoi(text) > 65535) {
        throw UsageError{"`--rendezvous-port` wants a TCP port, got `" + text + "`"};
      }
      options.flags.rendezvous_port = std::stoi(text);
    } else if (arg == "--rank-timeout") {
      options.rank_timeout = parse_seconds(arg, value(i, arg));
    } else if (arg == "--timeout") {
      options.probe_timeout = parse_seconds(arg, value(i, arg));
    } else if (arg == "--lock-hash") {
      options.lock_hash = value(i, arg);
    } else if (arg == "--lockfile") {
      options.lockfile = value(i, arg);
    } else if (arg == "--python") {
      options.python = value(i, arg);
    } else if (arg == "--no-collective") {
      options.no_collective = true;
    } else if (arg == "--min-busbw") {
      const std::string text = value(i, arg);
      char* end = nullptr;
      const double gbps = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(gbps > 0)) {
        throw UsageError{"`--min-busbw` wants GB/s, got `" + text + "`"};
      }
      options.min_busbw_gbps = gbps;
    } else if (hooks && arg == "--selftest-collective") {
      options.child.selftest = value(i, arg);
      if (!std::regex_match(options.child.selftest, std::regex("ok:[0-9.]+|hang|crash"))) {
        throw UsageError{"`--selftest-collective` wants ok:GBPS, hang or crash"};
      }
    } else if (hooks && arg == "--selftest-exit-after-hello") {
      options.selftest_exit_after_hello = true;
    } else {
      throw UsageError{"unknown option `" + arg +
                       "` for `--rank`; see `bevenv-probe --rank --help`"};
    }
  }
  if (options.lock_hash && options.lockfile) {
    throw UsageError{"give `--lock-hash` or `--lockfile`, not both"};
  }
  return options;
}

}  // namespace

json lock_info(const RankOptions& options) {
  if (options.lock_hash) return {{"hash", *options.lock_hash}, {"source", "--lock-hash"}};
  if (!options.lockfile) return nullptr;
  const std::string& path = *options.lockfile;
  std::ifstream file(path);
  if (!file) return {{"hash", nullptr}, {"source", path}, {"error", "cannot read `" + path + "`"}};
  static const std::regex kLine(R"re(\s*input_hash\s*=\s*"([^"]*)"\s*(#.*)?)re");
  for (std::string line; std::getline(file, line);) {
    std::smatch match;
    if (std::regex_match(line, match, kLine)) return {{"hash", match[1].str()}, {"source", path}};
  }
  return {
      {"hash", nullptr}, {"source", path}, {"error", "`" + path + "` has no `input_hash` line"}};
}

json rank_report(const RankPlace& place, const RankOptions& options, const json& collective) {
  Options probe_options;
  probe_options.python = options.python;
  probe_options.timeout = options.probe_timeout;
  json report{{"rank", place.rank},
              {"world_size", place.world_size},
              {"local_rank", place.local_rank},
              {"launcher", place.launcher},
              {"probe_version", BEVENV_PROBE_VERSION},
              {"pid", static_cast<long>(::getpid())}};
  report["host"] = probe_host();
  report["driver"] = run_isolated(
      "driver", [&] { return probe_driver(probe_options); }, options.probe_timeout);
  report["nvml"] = run_isolated(
      "nvml", [] { return probe_nvml(); }, options.probe_timeout);
  // One Python report per node: the ranks of a node share its environment.
  if (options.python && place.local_rank == 0) report["python"] = probe_python(probe_options);
  if (const json lock = lock_info(options); !lock.is_null()) report["lock"] = lock;
  report["collective"] = collective;
  return report;
}

int rank_main(int argc, char** argv) {
  try {
    bool exit_now = false;
    const RankOptions options = parse_rank_options(argc, argv, exit_now);
    if (exit_now) return 0;
    return run_rank(options);
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.message << "\n";
    return kExitUsage;
  }
}

}  // namespace bevenv::probe_tool
