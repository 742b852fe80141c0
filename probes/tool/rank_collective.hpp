#pragma once
// The multi-process all-reduce of `bevenv-probe --rank`: one process per GPU (device = local
// rank), ncclCommInitRank with the id rank 0 created, sums checked, nccl-tests style bandwidth.
// It runs inside a child process (rank_run.cpp), so a hung collective costs a timeout only.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "probe_tool.hpp"
#include "rank_env.hpp"

namespace bevenv::probe_tool {

struct CollectiveSetup : RankPosition {
  std::optional<std::string> nccl_id_hex;  // set on ranks other than 0
  std::vector<std::string> python_lib_dirs;
};

// Rank 0 calls `publish_id` with the hex ncclUniqueId as soon as it exists, before the
// collective, so the parent can hand it to the other ranks. Returns the collective's report:
// {"status", "device", "nccl_version", "results":[{bytes,time_us,algbw_gbps,busbw_gbps,
// wrong_elements}], "correct"}; "no_device"/"missing" when this host cannot take part.
json run_rank_collective(const CollectiveSetup& setup,
                         const std::function<void(const std::string&)>& publish_id);

bool rank_collective_built();

}  // namespace bevenv::probe_tool
