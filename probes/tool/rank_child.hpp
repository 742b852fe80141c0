#pragma once
// The collective of `bevenv-probe --rank` in a forked child: rank 0's child hands its NCCL id
// up a pipe before it joins the collective; a child that hangs is killed at its deadline, so
// a stuck NCCL costs the rank a "timeout", never the whole job.
#include <sys/types.h>

#include <optional>
#include <string>

#include "rank_collective.hpp"
#include "rendezvous.hpp"

namespace bevenv::probe_tool {

// Test hooks (BEVENV_PROBE_TEST_HOOKS=1): stand-ins for the collective on GPU-less hosts.
// "ok:GBPS" reports a correct all-reduce at that bus bandwidth, "hang" never returns,
// "crash" dies by SIGSEGV; empty runs the real NCCL collective.
struct ChildBehaviour {
  std::string selftest;
};

class CollectiveChild {
 public:
  CollectiveChild() = default;
  CollectiveChild(const CollectiveChild&) = delete;
  CollectiveChild& operator=(const CollectiveChild&) = delete;
  ~CollectiveChild();

  // Forks the child; its whole run is bounded by `deadline`.
  bool start(const CollectiveSetup& setup, const ChildBehaviour& behaviour, Deadline deadline);
  // Rank 0: waits until the child publishes its NCCL id; nullopt when the child finished (or
  // failed, or ran out of time) without one: result() then says why.
  std::optional<std::string> wait_for_id();
  // Waits for the child's report until the deadline; kills it then.
  json result();

 private:
  bool read_until(Deadline deadline, bool stop_at_id);

  pid_t pid_ = -1;
  int fd_ = -1;
  Deadline deadline_{};
  RendezvousClock::time_point started_{};
  double timeout_s_ = 0;
  std::string buffer_;
  std::optional<std::string> id_;
  bool eof_ = false;
};

}  // namespace bevenv::probe_tool
