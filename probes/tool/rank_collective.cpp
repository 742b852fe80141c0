#include "rank_collective.hpp"

#if defined(BEVENV_PROBE_HAVE_NCCL)

#include <chrono>

#include "nccl_api.hpp"

namespace bevenv::probe_tool {
namespace {

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

json run_collective(const CollectiveSetup& setup, const CudaDriver& cu, const NcclApi& nccl,
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
  GpuBuffers buffers(cu);
  buffers.allocate(device, setup.rank, nccl_sizes(setup.world_size).back());

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
  auto all_reduce = [&](std::size_t elements) {
    nccl.check(nccl.all_reduce(reinterpret_cast<const void*>(buffers.send),
                               reinterpret_cast<void*>(buffers.recv), elements, ncclFloat, ncclSum,
                               comm, buffers.stream),
               "ncclAllReduce");
  };
  try {
    out.update(measure_all_reduce({&buffers}, setup.world_size, all_reduce));
  } catch (const CudaFailure&) {
    nccl.comm_destroy(comm);
    throw;
  }
  nccl.comm_destroy(comm);
  return out;
}

}  // namespace

bool rank_collective_built() { return true; }

json run_rank_collective(const CollectiveSetup& setup,
                         const std::function<void(const std::string&)>& publish_id) {
  NcclApi nccl;
  if (!nccl.open(setup.python_lib_dirs)) return nccl.lib.missing_report("libnccl.so.2");
  json out{{"library_path", nccl.lib.path()}};
  if (const std::string version = nccl.version_text(); !version.empty()) {
    out["nccl_version"] = version;
  }
  CudaDriver cu;
  int count = 0;
  if (auto failure = cu.open_and_start(count, out)) return *failure;
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
