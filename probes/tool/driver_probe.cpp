// The driver probe: libcuda through dlopen with our own minimal prototypes, so it builds and
// runs without CUDA headers. Reports the driver's CUDA version, the devices and P2P access.
#include <array>
#include <cstdio>

#include "dynlib.hpp"
#include "probe_tool.hpp"

namespace bevenv::probe_tool {
namespace {

constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrPciBusId = 33;
constexpr int kAttrPciDeviceId = 34;
constexpr int kAttrPciDomainId = 50;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kCudaErrorNoDevice = 100;

// The entry points, typed by the driver API's ABI: CUresult and CUdevice are int; these never
// changed.
struct DriverApi {
  int (*init)(unsigned int) = nullptr;
  int (*driver_get_version)(int*) = nullptr;
  int (*device_get_count)(int*) = nullptr;
  int (*device_get)(int*, int) = nullptr;
  int (*device_get_name)(char*, int, int) = nullptr;
  int (*device_get_attribute)(int*, int, int) = nullptr;
  int (*device_total_mem)(std::size_t*, int) = nullptr;
  int (*device_get_uuid)(unsigned char*, int) = nullptr;
  int (*device_can_access_peer)(int*, int, int) = nullptr;
  int (*get_error_name)(int, const char**) = nullptr;
  int (*get_error_string)(int, const char**) = nullptr;

  json error(const char* call, int code) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (get_error_name != nullptr) get_error_name(code, &name);
    if (get_error_string != nullptr) get_error_string(code, &text);
    return {{"call", call},
            {"code", code},
            {"name", name != nullptr ? name : "CUDA_ERROR_" + std::to_string(code)},
            {"message", text != nullptr ? text : ""}};
  }
};

std::string format_uuid(const std::array<unsigned char, 16>& bytes) {
  // nvidia-smi's and NVML's spelling, so reports can be joined on it.
  std::string out = "GPU-";
  char hex[3];
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(hex, sizeof hex, "%02x", bytes[i]);
    out += hex;
  }
  return out;
}

json describe_device(const DriverApi& api, int ordinal, int device) {
  json out{{"index", ordinal}};
  char name[256] = {};
  if (api.device_get_name(name, sizeof name, device) == 0) out["name"] = name;
  int major = 0;
  int minor = 0;
  api.device_get_attribute(&major, kAttrComputeCapabilityMajor, device);
  api.device_get_attribute(&minor, kAttrComputeCapabilityMinor, device);
  out["compute_capability"] = std::to_string(major) + "." + std::to_string(minor);
  out["sm"] = "sm_" + std::to_string(major) + std::to_string(minor);
  int value = 0;
  if (api.device_get_attribute(&value, kAttrMultiprocessorCount, device) == 0) {
    out["multiprocessors"] = value;
  }
  int domain = 0;
  int bus = 0;
  int slot = 0;
  api.device_get_attribute(&domain, kAttrPciDomainId, device);
  api.device_get_attribute(&bus, kAttrPciBusId, device);
  api.device_get_attribute(&slot, kAttrPciDeviceId, device);
  char pci[32];
  std::snprintf(pci, sizeof pci, "%08x:%02x:%02x.0", static_cast<unsigned>(domain),
                static_cast<unsigned>(bus), static_cast<unsigned>(slot));
  out["pci_bus_id"] = pci;
  std::size_t total = 0;
  if (api.device_total_mem != nullptr && api.device_total_mem(&total, device) == 0) {
    out["memory_total_bytes"] = total;
  }
  std::array<unsigned char, 16> uuid{};
  if (api.device_get_uuid != nullptr && api.device_get_uuid(uuid.data(), device) == 0) {
    out["uuid"] = format_uuid(uuid);
  }
  return out;
}

bool load_api(const DynamicLibrary& lib, DriverApi& api) {
  lib.load(api.get_error_name, "cuGetErrorName");
  lib.load(api.get_error_string, "cuGetErrorString");
  lib.load_either(api.device_total_mem, "cuDeviceTotalMem_v2", "cuDeviceTotalMem");
  lib.load_either(api.device_get_uuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid");
  return lib.load(api.init, "cuInit") && lib.load(api.driver_get_version, "cuDriverGetVersion") &&
         lib.load(api.device_get_count, "cuDeviceGetCount") &&
         lib.load(api.device_get, "cuDeviceGet") &&
         lib.load(api.device_get_name, "cuDeviceGetName") &&
         lib.load(api.device_get_attribute, "cuDeviceGetAttribute") &&
         lib.load(api.device_can_access_peer, "cuDeviceCanAccessPeer");
}

}  // namespace

json probe_driver(const Options& options) {
  DynamicLibrary lib;
  if (!lib.open_first(library_candidates({"libcuda.so.1"}, driver_library_dirs(), true))) {
    return lib.missing_report("libcuda.so.1");
  }
  DriverApi api;
  if (!load_api(lib, api)) {
    return {{"status", "error"},
            {"library_path", lib.path()},
            {"error", "`" + lib.path() + "` lacks driver API entry points (not a CUDA driver?)"}};
  }
  json out{{"library_path", lib.path()}};
  int version = 0;
  if (api.driver_get_version(&version) == 0) {
    out["real_cuda_version"] = cuda_version_text(version);
    if (options.cuda_version_override && *options.cuda_version_override < version) {
      // For testing doctor's verdicts: behave as if the driver supported only this version.
      version = *options.cuda_version_override;
      out["cuda_version_overridden"] = true;
    }
    out["cuda_version"] = cuda_version_text(version);
    out["cuda_version_int"] = version;
  }
  const int init = api.init(0);
  if (init != 0) {
    return stopped(std::move(out), api.error("cuInit", init),
                   init == kCudaErrorNoDevice ? "no_device" : "error");
  }
  int count = 0;
  if (const int rc = api.device_get_count(&count); rc != 0) {
    return stopped(std::move(out), api.error("cuDeviceGetCount", rc));
  }
  out["device_count"] = count;
  if (count == 0) {
    return stopped(std::move(out), api.error("cuDeviceGetCount", kCudaErrorNoDevice), "no_device");
  }
  std::vector<int> devices;
  json described = json::array();
  for (int i = 0; i < count; ++i) {
    int device = 0;
    if (const int rc = api.device_get(&device, i); rc != 0) {
      return stopped(std::move(out), api.error("cuDeviceGet", rc));
    }
    devices.push_back(device);
    described.push_back(describe_device(api, i, device));
  }
  out["devices"] = described;
  // Row i, column j: can device i read/write device j's memory directly.
  json p2p = json::array();
  for (int a : devices) {
    json row = json::array();
    for (int b : devices) {
      int can = 0;
      if (a == b) {
        row.push_back(nullptr);
      } else {
        row.push_back(api.device_can_access_peer(&can, a, b) == 0 && can != 0);
      }
    }
    p2p.push_back(row);
  }
  out["p2p"] = p2p;
  out["status"] = "ok";
  return out;
}

}  // namespace bevenv::probe_tool
