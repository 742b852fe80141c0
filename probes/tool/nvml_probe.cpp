// The NVML probe: driver version string, and per GPU what the driver API does not tell:
// free memory, ECC and MIG mode. Own prototypes; NVML's ABI for these calls is stable.
#include "dynlib.hpp"
#include "probe_tool.hpp"

namespace bevenv::probe_tool {
namespace {

using NvmlDevice = void*;
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

constexpr int kNvmlErrorNotSupported = 3;

// The entry points, by NVML's prototypes (int is nvmlReturn_t).
struct NvmlApi {
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*driver_version)(char*, unsigned int) = nullptr;
  int (*cuda_driver_version)(int*) = nullptr;
  int (*device_count)(unsigned int*) = nullptr;
  int (*handle_by_index)(unsigned int, NvmlDevice*) = nullptr;
  int (*name)(NvmlDevice, char*, unsigned int) = nullptr;
  int (*uuid)(NvmlDevice, char*, unsigned int) = nullptr;
  int (*compute_capability)(NvmlDevice, int*, int*) = nullptr;
  int (*memory_info)(NvmlDevice, NvmlMemory*) = nullptr;
  int (*ecc_mode)(NvmlDevice, int*, int*) = nullptr;
  int (*mig_mode)(NvmlDevice, unsigned int*, unsigned int*) = nullptr;

  json error(const char* call, int code) const {
    const char* text = error_string != nullptr ? error_string(code) : nullptr;
    return {{"call", call}, {"code", code}, {"message", text != nullptr ? text : ""}};
  }
};

bool load_api(const DynamicLibrary& lib, NvmlApi& api) {
  lib.load_either(api.cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2",
                  "nvmlSystemGetCudaDriverVersion");
  lib.load(api.error_string, "nvmlErrorString");
  lib.load(api.compute_capability, "nvmlDeviceGetCudaComputeCapability");
  lib.load(api.ecc_mode, "nvmlDeviceGetEccMode");
  lib.load(api.mig_mode, "nvmlDeviceGetMigMode");
  lib.load(api.uuid, "nvmlDeviceGetUUID");
  return lib.load_either(api.init, "nvmlInit_v2", "nvmlInit") &&
         lib.load_either(api.device_count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount") &&
         lib.load_either(api.handle_by_index, "nvmlDeviceGetHandleByIndex_v2",
                         "nvmlDeviceGetHandleByIndex") &&
         lib.load(api.shutdown, "nvmlShutdown") &&
         lib.load(api.driver_version, "nvmlSystemGetDriverVersion") &&
         lib.load(api.name, "nvmlDeviceGetName") &&
         lib.load(api.memory_info, "nvmlDeviceGetMemoryInfo");
}

// "enabled"/"disabled", or "not_supported" (GeForce has no ECC; most GPUs have no MIG).
json mode_value(int rc, bool enabled) {
  if (rc == kNvmlErrorNotSupported) return "not_supported";
  if (rc != 0) return nullptr;
  return enabled ? "enabled" : "disabled";
}

json describe_device(const NvmlApi& api, unsigned int index, NvmlDevice device) {
  json out{{"index", index}};
  char text[256] = {};
  if (api.name(device, text, sizeof text) == 0) out["name"] = text;
  if (api.uuid != nullptr && api.uuid(device, text, sizeof text) == 0) out["uuid"] = text;
  int major = 0;
  int minor = 0;
  if (api.compute_capability != nullptr && api.compute_capability(device, &major, &minor) == 0) {
    out["compute_capability"] = std::to_string(major) + "." + std::to_string(minor);
  }
  NvmlMemory memory{};
  if (api.memory_info(device, &memory) == 0) {
    out["memory_total_bytes"] = memory.total;
    out["memory_free_bytes"] = memory.free;
    out["memory_used_bytes"] = memory.used;
  }
  if (api.ecc_mode != nullptr) {
    int current = 0;
    int pending = 0;
    const int rc = api.ecc_mode(device, &current, &pending);
    out["ecc"] = mode_value(rc, current != 0);
  }
  if (api.mig_mode != nullptr) {
    unsigned int current = 0;
    unsigned int pending = 0;
    const int rc = api.mig_mode(device, &current, &pending);
    out["mig"] = mode_value(rc, current != 0);
  }
  return out;
}

}  // namespace

json probe_nvml() {
  DynamicLibrary lib;
  if (!lib.open_first(library_candidates({"libnvidia-ml.so.1"}, driver_library_dirs(), true))) {
    return lib.missing_report("libnvidia-ml.so.1");
  }
  NvmlApi api;
  json out{{"library_path", lib.path()}};
  if (!load_api(lib, api)) {
    return stopped(std::move(out), "`" + lib.path() + "` lacks NVML entry points");
  }
  if (const int rc = api.init(); rc != 0) return stopped(std::move(out), api.error("nvmlInit", rc));
  char version[96] = {};
  if (api.driver_version(version, sizeof version) == 0) out["driver_version"] = version;
  int cuda = 0;
  if (api.cuda_driver_version != nullptr && api.cuda_driver_version(&cuda) == 0) {
    out["cuda_version"] = cuda_version_text(cuda);
  }
  unsigned int count = 0;
  if (const int rc = api.device_count(&count); rc != 0) {
    json report = stopped(std::move(out), api.error("nvmlDeviceGetCount", rc));
    api.shutdown();
    return report;
  }
  json devices = json::array();
  for (unsigned int i = 0; i < count; ++i) {
    NvmlDevice device = nullptr;
    if (const int rc = api.handle_by_index(i, &device); rc != 0) {
      devices.push_back({{"index", i}, {"error", api.error("nvmlDeviceGetHandleByIndex", rc)}});
      continue;
    }
    devices.push_back(describe_device(api, i, device));
  }
  out["device_count"] = count;
  out["devices"] = devices;
  out["status"] = count == 0 ? "no_device" : "ok";
  api.shutdown();
  return out;
}

}  // namespace bevenv::probe_tool
