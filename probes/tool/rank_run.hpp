#pragma once
// `bevenv-probe --rank`: one process per GPU, started by the cluster's own launcher. Rank 0
// listens for the others, hands out the NCCL id, gathers every rank's report and prints one
// aggregate JSON document; the other ranks print nothing on stdout and one status line on
// stderr.
#include <chrono>
#include <optional>
#include <string>

#include "rank_child.hpp"
#include "rank_env.hpp"

namespace bevenv::probe_tool {

struct RankOptions {
  RankFlags flags;
  std::chrono::milliseconds rank_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds probe_timeout{std::chrono::seconds(30)};
  std::optional<std::string> lock_hash;
  std::optional<std::string> lockfile;
  std::optional<std::string> python;
  bool no_collective = false;
  std::optional<double> min_busbw_gbps;
  ChildBehaviour child;                    // test hooks only
  bool selftest_exit_after_hello = false;  // test hooks only: a rank that dies mid-job
};

// Parses the rank-mode command line and runs it; returns the exit status.
int rank_main(int argc, char** argv);
// Runs this rank (leader or follower) with parsed options; returns the exit status.
int run_rank(const RankOptions& options);

// The rank's own report: host, driver, NVML, Python (local rank 0 only), lock hash and the
// collective's result.
json rank_report(const RankPlace& place, const RankOptions& options, const json& collective);

// Reads the `input_hash = "..."` line of a bevenv.lock; a {"hash"} or {"error"} object.
json lock_info(const RankOptions& options);

}  // namespace bevenv::probe_tool
