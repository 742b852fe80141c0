// The NCCL probe: one process drives every visible GPU (ncclCommInitAll), all-reduces float
// buffers at a few sizes, checks the sums and reports nccl-tests style algbw and busbw.
#include <chrono>
#include <deque>

#include "nccl_api.hpp"

namespace bevenv::probe_tool {
namespace {

json run_all_reduce(const CudaDriver& cu, const NcclApi& nccl, int count) {
  // A deque: GpuBuffers can be neither copied nor moved.
  std::deque<GpuBuffers> gpus;
  std::vector<const GpuBuffers*> local;
  for (int i = 0; i < count; ++i) {
    gpus.emplace_back(cu).allocate(i, i, nccl_sizes(count).back());
    local.push_back(&gpus.back());
  }
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(count));
  const auto init_start = std::chrono::steady_clock::now();
  nccl.check(nccl.comm_init_all(comms.data(), count, nullptr), "ncclCommInitAll");
  json out{{"init_ms",
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - init_start)
                .count()}};
  auto all_reduce = [&](std::size_t elements) {
    nccl.check(nccl.group_start(), "ncclGroupStart");
    for (std::size_t r = 0; r < gpus.size(); ++r) {
      cu.check(cu.ctx_set_current(gpus[r].context), "cuCtxSetCurrent");
      nccl.check(nccl.all_reduce(reinterpret_cast<const void*>(gpus[r].send),
                                 reinterpret_cast<void*>(gpus[r].recv), elements, ncclFloat,
                                 ncclSum, comms[r], gpus[r].stream),
                 "ncclAllReduce");
    }
    nccl.check(nccl.group_end(), "ncclGroupEnd");
  };
  auto destroy_comms = [&] {
    for (ncclComm_t comm : comms) nccl.comm_destroy(comm);
  };
  try {
    out.update(measure_all_reduce(local, count, all_reduce));
  } catch (const CudaFailure&) {
    destroy_comms();
    throw;
  }
  destroy_comms();
  return out;
}

}  // namespace

bool nccl_probe_built() { return true; }

json probe_nccl(const std::vector<std::string>& python_lib_dirs) {
  NcclApi nccl;
  if (!nccl.open(python_lib_dirs)) return nccl.lib.missing_report("libnccl.so.2");
  json out{{"library_path", nccl.lib.path()}};
  if (const std::string version = nccl.version_text(); !version.empty()) out["version"] = version;
  CudaDriver cu;
  int count = 0;
  if (auto failure = cu.open_and_start(count, out)) return *failure;
  out["gpus"] = count;
  try {
    out.update(run_all_reduce(cu, nccl, count));
  } catch (const CudaFailure& failure) {
    out["status"] = "error";
    out["error"] = failure.error();
  }
  return out;
}

}  // namespace bevenv::probe_tool
