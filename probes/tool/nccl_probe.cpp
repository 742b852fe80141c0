// The NCCL probe: one process drives every visible GPU (ncclCommInitAll), all-reduces float
// buffers at a few sizes, checks the sums and reports nccl-tests style algbw and busbw.
#include <nccl.h>

#include <chrono>
#include <cstring>

#include "cuda_driver.hpp"

namespace bevenv::probe_tool {
namespace {

constexpr int kWarmupIterations = 5;
constexpr int kTimedIterations = 20;
constexpr std::size_t kMiB = 1024 * 1024;
const std::size_t kSizes[] = {8 * kMiB, 64 * kMiB, 256 * kMiB};

struct NcclApi {
  DynamicLibrary lib;
  decltype(&::ncclGetVersion) get_version = nullptr;
  decltype(&::ncclGetErrorString) error_string = nullptr;
  decltype(&::ncclCommInitAll) comm_init_all = nullptr;
  decltype(&::ncclCommDestroy) comm_destroy = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclGroupStart) group_start = nullptr;
  decltype(&::ncclGroupEnd) group_end = nullptr;

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
           lib.load(comm_init_all, "ncclCommInitAll") &&
           lib.load(comm_destroy, "ncclCommDestroy") && lib.load(all_reduce, "ncclAllReduce") &&
           lib.load(group_start, "ncclGroupStart") && lib.load(group_end, "ncclGroupEnd");
  }

  void check(ncclResult_t rc, const char* call) const {
    if (rc != ncclSuccess) {
      throw CudaFailure(
          {{"call", call}, {"code", static_cast<int>(rc)}, {"name", error_string(rc)}});
    }
  }
};

std::string version_text(int code) {
  // NCCL_VERSION(X,Y,Z): X*1000+Y*100+Z before 2.9, X*10000+Y*100+Z since.
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code / 100) % 100 : (code / 100) % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

struct Rank {
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr send = 0;
  CUdeviceptr recv = 0;
};

json run_all_reduce(const CudaDriver& cu, const NcclApi& nccl, int count) {
  const std::size_t largest = kSizes[std::size(kSizes) - 1];
  std::vector<Rank> ranks(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    Rank& rank = ranks[static_cast<std::size_t>(i)];
    cu.check(cu.device_get(&rank.device, i), "cuDeviceGet");
    cu.check(cu.primary_ctx_retain(&rank.context, rank.device), "cuDevicePrimaryCtxRetain");
    cu.check(cu.ctx_set_current(rank.context), "cuCtxSetCurrent");
    cu.check(cu.stream_create(&rank.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    cu.check(cu.mem_alloc(&rank.send, largest), "cuMemAlloc");
    cu.check(cu.mem_alloc(&rank.recv, largest), "cuMemAlloc");
    // Rank i contributes i+1 everywhere, so every element must sum to n(n+1)/2 exactly.
    const float value = static_cast<float>(i + 1);
    unsigned int bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    cu.check(cu.memset_d32(rank.send, bits, largest / sizeof(float)), "cuMemsetD32");
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

  const double n = count;
  const float expected = static_cast<float>(count * (count + 1) / 2);
  std::vector<float> host(largest / sizeof(float));
  json results = json::array();
  bool all_correct = true;
  for (std::size_t bytes : kSizes) {
    const std::size_t elements = bytes / sizeof(float);
    for (int i = 0; i < kWarmupIterations; ++i) all_reduce(elements);
    synchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kTimedIterations; ++i) all_reduce(elements);
    synchronize();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
        kTimedIterations;
    std::size_t wrong = 0;
    for (const Rank& rank : ranks) {
      cu.check(cu.ctx_set_current(rank.context), "cuCtxSetCurrent");
      cu.check(cu.memcpy_dtoh(host.data(), rank.recv, bytes), "cuMemcpyDtoH");
      for (std::size_t e = 0; e < elements; ++e) wrong += host[e] != expected ? 1U : 0U;
    }
    const double algbw = static_cast<double>(bytes) / seconds / 1e9;
    results.push_back({{"bytes", bytes},
                       {"time_us", seconds * 1e6},
                       {"algbw_gbps", algbw},
                       {"busbw_gbps", algbw * 2.0 * (n - 1) / n},
                       {"wrong_elements", wrong}});
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
  int version = 0;
  if (nccl.get_version(&version) == ncclSuccess) out["version"] = version_text(version);
  CudaDriver cu;
  if (auto failure = cu.open()) {
    failure->update(out);
    return *failure;
  }
  int count = 0;
  if (auto failure = cu.start(count)) {
    failure->update(out);
    return *failure;
  }
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
