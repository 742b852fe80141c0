#include "rank_collective.hpp"

#if defined(BEVENV_PROBE_HAVE_NCCL)

#include <nccl.h>

#include <chrono>
#include <cstring>

#include "cuda_driver.hpp"

namespace bevenv::probe_tool {
namespace {

constexpr int kWarmupIterations = 5;
constexpr int kTimedIterations = 20;
constexpr std::size_t kMiB = 1024 * 1024;
// The same sizes as the single-process NCCL probe and bench/cluster_allreduce_torch.py.
const std::size_t kSizes[] = {8 * kMiB, 64 * kMiB, 256 * kMiB};

struct RankNccl {
  DynamicLibrary lib;
  decltype(&::ncclGetVersion) get_version = nullptr;
  decltype(&::ncclGetErrorString) error_string = nullptr;
  decltype(&::ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&::ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&::ncclCommDestroy) comm_destroy = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;

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
           lib.load(comm_init_rank, "ncclCommInitRank") &&
           lib.load(comm_destroy, "ncclCommDestroy") && lib.load(all_reduce, "ncclAllReduce");
  }

  void check(ncclResult_t rc, const char* call) const {
    if (rc != ncclSuccess) {
      throw CudaFailure(
          {{"call", call}, {"code", static_cast<int>(rc)}, {"name", error_string(rc)}});
    }
  }
};

std::string nccl_version_text(int code) {
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code / 100) % 100 : (code / 100) % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string to_hex(const ncclUniqueId& id) {
  static const char* const kDigits = "0123456789abcdef";
  std::string out;
  for (char c : id.internal) {
    const auto byte = static_cast<unsigned char>(c);
    out += kDigits[byte >> 4];
    out += kDigits[byte & 0x0FU];
  }
  return out;
}

std::optional<ncclUniqueId> from_hex(const std::string& hex) {
  ncclUniqueId id{};
  if (hex.size() != 2 * sizeof id.internal) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < sizeof id.internal; ++i) {
    const int high = nibble(hex[2 * i]);
    const int low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    id.internal[i] = static_cast<char>(high * 16 + low);
  }
  return id;
}

double elapsed_seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Buffers {
  const CudaDriver& cu;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr send = 0;
  CUdeviceptr recv = 0;
  explicit Buffers(const CudaDriver& driver) : cu(driver) {}
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    if (context == nullptr) return;
    cu.ctx_set_current(context);
    if (send != 0) cu.mem_free(send);
    if (recv != 0) cu.mem_free(recv);
    if (stream != nullptr) cu.stream_destroy(stream);
    cu.primary_ctx_release(device);
  }
};

json measure(const CudaDriver& cu, const RankNccl& nccl, ncclComm_t comm, Buffers& buffers,
             int world_size) {
  const double n = world_size;
  // Rank r contributes r+1 everywhere, so every element must sum to n(n+1)/2 exactly.
  const float expected = static_cast<float>(world_size * (world_size + 1) / 2);
  std::vector<float> host(kSizes[std::size(kSizes) - 1] / sizeof(float));
  json results = json::array();
  bool all_correct = true;
  for (std::size_t bytes : kSizes) {
    const std::size_t elements = bytes / sizeof(float);
    auto all_reduce = [&] {
      nccl.check(nccl.all_reduce(reinterpret_cast<const void*>(buffers.send),
                                 reinterpret_cast<void*>(buffers.recv), elements, ncclFloat,
                                 ncclSum, comm, buffers.stream),
                 "ncclAllReduce");
    };
    for (int i = 0; i < kWarmupIterations; ++i) all_reduce();
    cu.check(cu.stream_synchronize(buffers.stream), "cuStreamSynchronize");
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kTimedIterations; ++i) all_reduce();
    cu.check(cu.stream_synchronize(buffers.stream), "cuStreamSynchronize");
    const double seconds = elapsed_seconds(start) / kTimedIterations;
    cu.check(cu.memcpy_dtoh(host.data(), buffers.recv, bytes), "cuMemcpyDtoH");
    std::size_t wrong = 0;
    for (std::size_t e = 0; e < elements; ++e) wrong += host[e] != expected ? 1U : 0U;
    const double algbw = static_cast<double>(bytes) / seconds / 1e9;
    results.push_back({{"bytes", bytes},
                       {"time_us", seconds * 1e6},
                       {"algbw_gbps", algbw},
                       {"busbw_gbps", algbw * 2.0 * (n - 1) / n},
                       {"wrong_elements", wrong}});
    all_correct = all_correct && wrong == 0;
  }
  return {{"results", results}, {"correct", all_correct}};
}

json run_collective(const CollectiveSetup& setup, const CudaDriver& cu, const RankNccl& nccl,
                    int device_count, const std::function<void(const std::string&)>& publish_id) {
  // One process per GPU: the launcher may already have narrowed CUDA_VISIBLE_DEVICES to one.
  const int device = device_count == 1 ? 0 : setup.local_rank;
  json out{{"device", device}, {"visible_devices", device_count}};
  if (device >= device_count) {
    out["status"] = "error";
    out["error"] = "local rank " + std::to_string(setup.local_rank) + " but only " +
                   std::to_string(device_count) + " GPUs are visible";
    return out;
  }
  Buffers buffers(cu);
  const std::size_t largest = kSizes[std::size(kSizes) - 1];
  cu.check(cu.device_get(&buffers.device, device), "cuDeviceGet");
  cu.check(cu.primary_ctx_retain(&buffers.context, buffers.device), "cuDevicePrimaryCtxRetain");
  cu.check(cu.ctx_set_current(buffers.context), "cuCtxSetCurrent");
  cu.check(cu.stream_create(&buffers.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  cu.check(cu.mem_alloc(&buffers.send, largest), "cuMemAlloc");
  cu.check(cu.mem_alloc(&buffers.recv, largest), "cuMemAlloc");
  const float value = static_cast<float>(setup.rank + 1);
  unsigned int bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  cu.check(cu.memset_d32(buffers.send, bits, largest / sizeof(float)), "cuMemsetD32");

  ncclUniqueId id{};
  if (setup.rank == 0) {
    nccl.check(nccl.get_unique_id(&id), "ncclGetUniqueId");
    publish_id(to_hex(id));
  } else {
    const auto parsed = from_hex(setup.nccl_id_hex.value_or(""));
    if (!parsed) {
      out["status"] = "error";
      out["error"] = "rank 0 sent a malformed NCCL id";
      return out;
    }
    id = *parsed;
  }
  ncclComm_t comm = nullptr;
  const auto init_start = std::chrono::steady_clock::now();
  nccl.check(nccl.comm_init_rank(&comm, setup.world_size, id, setup.rank), "ncclCommInitRank");
  out["init_ms"] = elapsed_seconds(init_start) * 1000.0;
  try {
    out.update(measure(cu, nccl, comm, buffers, setup.world_size));
  } catch (const CudaFailure&) {
    nccl.comm_destroy(comm);
    throw;
  }
  nccl.comm_destroy(comm);
  const bool correct = out["correct"].get<bool>();
  out["status"] = correct ? "ok" : "error";
  if (!correct) out["error"] = "all-reduce produced wrong sums";
  return out;
}

}  // namespace

bool rank_collective_built() { return true; }

json run_rank_collective(const CollectiveSetup& setup,
                         const std::function<void(const std::string&)>& publish_id) {
  RankNccl nccl;
  if (!nccl.open(setup.python_lib_dirs)) return nccl.lib.missing_report("libnccl.so.2");
  json out{{"library_path", nccl.lib.path()}};
  int version = 0;
  if (nccl.get_version(&version) == ncclSuccess) out["nccl_version"] = nccl_version_text(version);
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
  try {
    out.update(run_collective(setup, cu, nccl, count, publish_id));
  } catch (const CudaFailure& failure) {
    out["status"] = "error";
    out["error"] = failure.error();
  }
  return out;
}

}  // namespace bevenv::probe_tool

#else

namespace bevenv::probe_tool {

bool rank_collective_built() { return false; }

json run_rank_collective(const CollectiveSetup&, const std::function<void(const std::string&)>&) {
  return {{"status", "unsupported"},
          {"error", "this bevenv-probe was built without nccl.h (no multi-process all-reduce)"}};
}

}  // namespace bevenv::probe_tool

#endif
