// libnccl.so.2 opened at run time, shared by the single-process probe (ncclCommInitAll) and the
// one-process-per-GPU rank mode (ncclCommInitRank), plus what both measure the same way: the
// sizes, the iteration counts and nccl-tests' bandwidth formulas. Included only where nccl.h is.
#pragma once

#include <nccl.h>

#include <chrono>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "cuda_driver.hpp"

namespace bevenv::probe_tool {

inline constexpr int kNcclWarmupIterations = 5;
inline constexpr int kNcclTimedIterations = 20;
inline constexpr std::size_t kNcclSizes[] = {8U << 20U, 64U << 20U, 256U << 20U};

// The sizes measured for a world of `ranks`. With one rank an all-reduce crosses no link (busbw
// is 0 by nccl-tests' formula), so only its sums are worth checking: the smallest size alone,
// which spares allocating, filling and copying back 320 MiB that measure nothing.
inline std::span<const std::size_t> nccl_sizes(int ranks) {
  const std::span<const std::size_t> all(kNcclSizes);
  return ranks > 1 ? all : all.first(1);
}

struct NcclApi {
  DynamicLibrary lib;
  decltype(&::ncclGetVersion) get_version = nullptr;
  decltype(&::ncclGetErrorString) error_string = nullptr;
  decltype(&::ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&::ncclCommInitAll) comm_init_all = nullptr;
  decltype(&::ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&::ncclCommDestroy) comm_destroy = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclGroupStart) group_start = nullptr;
  decltype(&::ncclGroupEnd) group_end = nullptr;

  // Prefers the NCCL that the Python environment ships (nvidia/nccl/lib next to torch): that is
  // the one training will load.
  bool open(const std::vector<std::string>& python_lib_dirs) {
    std::vector<std::string> dirs;
    for (const auto& dir : python_lib_dirs) {
      if (dir.find("/nvidia/nccl/") != std::string::npos) dirs.push_back(dir);
    }
    const auto toolkit = toolkit_library_dirs();
    dirs.insert(dirs.end(), toolkit.begin(), toolkit.end());
    if (!lib.open_first(library_candidates({"libnccl.so.2"}, dirs, true))) return false;
    return lib.load(get_version, "ncclGetVersion") &&
           lib.load(error_string, "ncclGetErrorString") &&
           lib.load(get_unique_id, "ncclGetUniqueId") &&
           lib.load(comm_init_all, "ncclCommInitAll") &&
           lib.load(comm_init_rank, "ncclCommInitRank") &&
           lib.load(comm_destroy, "ncclCommDestroy") && lib.load(all_reduce, "ncclAllReduce") &&
           lib.load(group_start, "ncclGroupStart") && lib.load(group_end, "ncclGroupEnd");
  }

  void check(ncclResult_t rc, const char* call) const {
    if (rc != ncclSuccess) {
      throw CudaFailure(
          {{"call", call}, {"code", static_cast<int>(rc)}, {"name", error_string(rc)}});
    }
  }

  // "2.28.3"; NCCL_VERSION(X,Y,Z) was X*1000+Y*100+Z before 2.9 and X*10000+Y*100+Z since.
  std::string version_text() const {
    int code = 0;
    if (get_version(&code) != ncclSuccess) return "";
    const int major = code >= 10000 ? code / 10000 : code / 1000;
    const int minor = code >= 10000 ? (code / 100) % 100 : (code / 100) % 10;
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
  }
};

// One row of the report, with nccl-tests' formulas: algbw = bytes / time and, for all-reduce,
// busbw = algbw * 2(n-1)/n, the rate each link must sustain whatever the algorithm.
inline json bandwidth_row(std::size_t bytes, double seconds, int ranks, std::size_t wrong) {
  const double n = ranks;
  const double algbw = static_cast<double>(bytes) / seconds / 1e9;
  return {{"bytes", bytes},
          {"time_us", seconds * 1e6},
          {"algbw_gbps", algbw},
          {"busbw_gbps", algbw * 2.0 * (n - 1) / n},
          {"wrong_elements", wrong}};
}

// One GPU's side of an all-reduce: its primary context, a stream, and send and receive buffers
// of the largest size measured, the send buffer filled with this rank's contribution. Everything
// taken is released on scope exit, also when a CUDA call throws halfway through allocate().
class GpuBuffers {
 public:
  explicit GpuBuffers(const CudaDriver& driver) : cu_(driver) {}
  GpuBuffers(const GpuBuffers&) = delete;
  GpuBuffers& operator=(const GpuBuffers&) = delete;
  ~GpuBuffers() {
    if (context == nullptr) return;
    cu_.ctx_set_current(context);
    if (send != 0) cu_.mem_free(send);
    if (recv != 0) cu_.mem_free(recv);
    if (stream != nullptr) cu_.stream_destroy(stream);
    cu_.primary_ctx_release(device);
  }

  // Rank r contributes r+1 everywhere, so every element must sum to n(n+1)/2 exactly.
  void allocate(int device_index, int rank, std::size_t bytes) {
    cu_.check(cu_.device_get(&device, device_index), "cuDeviceGet");
    cu_.check(cu_.primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain");
    cu_.check(cu_.ctx_set_current(context), "cuCtxSetCurrent");
    cu_.check(cu_.stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    cu_.check(cu_.mem_alloc(&send, bytes), "cuMemAlloc");
    cu_.check(cu_.mem_alloc(&recv, bytes), "cuMemAlloc");
    const float value = static_cast<float>(rank + 1);
    unsigned int bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    cu_.check(cu_.memset_d32(send, bits, bytes / sizeof(float)), "cuMemsetD32");
  }

  void synchronize() const {
    cu_.check(cu_.ctx_set_current(context), "cuCtxSetCurrent");
    cu_.check(cu_.stream_synchronize(stream), "cuStreamSynchronize");
  }

  // Elements among the first `elements` received that are not n(n+1)/2 for n `ranks`.
  std::size_t wrong_elements(std::vector<float>& host, std::size_t elements, int ranks) const {
    cu_.check(cu_.ctx_set_current(context), "cuCtxSetCurrent");
    cu_.check(cu_.memcpy_dtoh(host.data(), recv, elements * sizeof(float)), "cuMemcpyDtoH");
    const float expected = static_cast<float>(ranks * (ranks + 1) / 2);
    std::size_t wrong = 0;
    for (std::size_t e = 0; e < elements; ++e) wrong += host[e] != expected ? 1U : 0U;
    return wrong;
  }

  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr send = 0;
  CUdeviceptr recv = 0;

 private:
  const CudaDriver& cu_;
};

// Every size of nccl_sizes(ranks) the nccl-tests way: warm-up calls, then the timed calls between
// two synchronisations, then the sums checked on `local` (the GPUs this process drives). `issue`
// enqueues one all-reduce of `elements` floats on all of them; `ranks` is the world size.
template <typename Issue>
json measure_all_reduce(const std::vector<const GpuBuffers*>& local, int ranks, Issue issue) {
  auto synchronize = [&] {
    for (const GpuBuffers* gpu : local) gpu->synchronize();
  };
  const std::span<const std::size_t> sizes = nccl_sizes(ranks);
  std::vector<float> host(sizes.back() / sizeof(float));
  json results = json::array();
  bool all_correct = true;
  for (std::size_t bytes : sizes) {
    const std::size_t elements = bytes / sizeof(float);
    for (int i = 0; i < kNcclWarmupIterations; ++i) issue(elements);
    synchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kNcclTimedIterations; ++i) issue(elements);
    synchronize();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
        kNcclTimedIterations;
    std::size_t wrong = 0;
    for (const GpuBuffers* gpu : local) wrong += gpu->wrong_elements(host, elements, ranks);
    results.push_back(bandwidth_row(bytes, seconds, ranks, wrong));
    all_correct = all_correct && wrong == 0;
  }
  json out{
      {"results", results}, {"correct", all_correct}, {"status", all_correct ? "ok" : "error"}};
  if (!all_correct) out["error"] = "all-reduce produced wrong sums";
  return out;
}

}  // namespace bevenv::probe_tool
