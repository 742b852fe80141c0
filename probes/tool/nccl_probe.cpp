// The NCCL probe: one process drives every visible GPU (ncclCommInitAll), all-reduces float
// buffers at a few sizes, checks the sums and reports nccl-tests style algbw and busbw.
#include <chrono>

#include "nccl_api.hpp"

namespace bevenv::probe_tool {
namespace {

struct Rank {
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr send = 0;
  CUdeviceptr recv = 0;
};

json run_all_reduce(const CudaDriver& cu, const NcclApi& nccl, int count) {
  const std::size_t largest = kNcclLargestSize;
  std::vector<Rank> ranks(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    Rank& rank = ranks[static_cast<std::size_t>(i)];
    cu.check(cu.device_get(&rank.device, i), "cuDeviceGet");
    cu.check(cu.primary_ctx_retain(&rank.context, rank.device), "cuDevicePrimaryCtxRetain");
    cu.check(cu.ctx_set_current(rank.context), "cuCtxSetCurrent");
    cu.check(cu.stream_create(&rank.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    cu.check(cu.mem_alloc(&rank.send, largest), "cuMemAlloc");
    cu.check(cu.mem_alloc(&rank.recv, largest), "cuMemAlloc");
    cu.check(cu.memset_d32(rank.send, contribution_bits(i), largest / sizeof(float)),
             "cuMemsetD32");
  }
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(count));
  const auto init_start = std::chrono::steady_clock::now();
  nccl.check(nccl.comm_init_all(comms.data(), count, nullptr), "ncclCommInitAll");
  json out{{"init_ms",
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - init_start)
                .count()}};

  auto all_reduce = [&](std::size_t elements) {
    nccl.check(nccl.group_start(), "ncclGroupStart");
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      cu.check(cu.ctx_set_current(ranks[r].context), "cuCtxSetCurrent");
      nccl.check(nccl.all_reduce(reinterpret_cast<const void*>(ranks[r].send),
                                 reinterpret_cast<void*>(ranks[r].recv), elements, ncclFloat,
                                 ncclSum, comms[r], ranks[r].stream),
                 "ncclAllReduce");
    }
    nccl.check(nccl.group_end(), "ncclGroupEnd");
  };
  auto synchronize = [&] {
    for (const Rank& rank : ranks) {
      cu.check(cu.ctx_set_current(rank.context), "cuCtxSetCurrent");
      cu.check(cu.stream_synchronize(rank.stream), "cuStreamSynchronize");
    }
  };

  std::vector<float> host(largest / sizeof(float));
  json results = json::array();
  bool all_correct = true;
  for (std::size_t bytes : kNcclSizes) {
    const std::size_t elements = bytes / sizeof(float);
    for (int i = 0; i < kNcclWarmupIterations; ++i) all_reduce(elements);
    synchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kNcclTimedIterations; ++i) all_reduce(elements);
    synchronize();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
        kNcclTimedIterations;
    std::size_t wrong = 0;
    for (const Rank& rank : ranks) {
      cu.check(cu.ctx_set_current(rank.context), "cuCtxSetCurrent");
      cu.check(cu.memcpy_dtoh(host.data(), rank.recv, bytes), "cuMemcpyDtoH");
      wrong += count_wrong(host, elements, count);
    }
    results.push_back(bandwidth_row(bytes, seconds, count, wrong));
    all_correct = all_correct && wrong == 0;
  }
  out["results"] = results;
  out["correct"] = all_correct;
  out["status"] = all_correct ? "ok" : "error";
  if (!all_correct) out["error"] = "all-reduce produced wrong sums";
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    nccl.comm_destroy(comms[r]);
    cu.ctx_set_current(ranks[r].context);
    cu.mem_free(ranks[r].send);
    cu.mem_free(ranks[r].recv);
    cu.stream_destroy(ranks[r].stream);
    cu.primary_ctx_release(ranks[r].device);
  }
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
