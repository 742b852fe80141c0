#pragma once
// Rank 0's view of a cluster job: every rank's report side by side, the facts that differ
// between nodes, failed or slow collective ranks and the ranks that never arrived. A pure
// function of what the rendezvous gathered, so it is testable without sockets or GPUs.
#include <optional>
#include <string>
#include <vector>

#include "probe_tool.hpp"

namespace bevenv::probe_tool {

// What became of one rank: "reported"; "missing" (never connected); "lost" (connected, then
// the connection closed before its report); "timeout" (connected, no report in time).
struct RankRecord {
  int rank = 0;
  std::string state;
  std::string address;  // the peer address it connected from
  json hello = json::object();
  json report = json::object();
  std::string error;
};

struct AggregateContext {
  std::string launcher;
  int world_size = 1;
  std::string master;  // "host:port" of the launcher's master
  int rendezvous_port = 0;
  double rank_timeout_s = 0;
  std::optional<double> min_busbw_gbps;  // --min-busbw: slower ranks are problems
  std::optional<std::string> collective_skip_reason;
  bool collective_skip_is_problem = false;  // skipped because it could not run, not by request
  std::vector<std::string> extra_problems;  // rank 0's own trouble: a port it could not bind
};

// The aggregate document rank 0 prints; its shape is documented in docs/cluster.md.
json aggregate_cluster(const AggregateContext& context, const std::vector<RankRecord>& ranks);

// A probe error (a string, or a {"call","name","code"} object from a CUDA/NCCL call) as text.
std::string error_text(const json& error);

}  // namespace bevenv::probe_tool
