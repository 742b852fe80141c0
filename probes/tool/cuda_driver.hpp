#pragma once
// The CUDA driver API entry points that the kernel and NCCL probes use, loaded with dlopen and
// typed by cuda.h's own prototypes (decltype), so a wrong signature fails to compile.
// Only included where BEVENV_PROBE_HAVE_KERNEL is set.
#include <cuda.h>

#include <stdexcept>

#include "dynlib.hpp"
#include "probe_tool.hpp"

namespace bevenv::probe_tool {

// A failed driver call, carried to the probe's top as a JSON error object.
class CudaFailure : public std::runtime_error {
 public:
  explicit CudaFailure(json error)
      : std::runtime_error("CUDA call failed"), error_(std::move(error)) {}
  const json& error() const { return error_; }

 private:
  json error_;
};

struct CudaDriver {
  DynamicLibrary lib;
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) primary_ctx_release = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuMemAlloc) mem_alloc = nullptr;
  decltype(&::cuMemFree) mem_free = nullptr;
  decltype(&::cuMemcpyHtoD) memcpy_htod = nullptr;
  decltype(&::cuMemcpyDtoH) memcpy_dtoh = nullptr;
  decltype(&::cuMemsetD32) memset_d32 = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  decltype(&::cuEventElapsedTime) event_elapsed_time = nullptr;
  decltype(&::cuEventDestroy) event_destroy = nullptr;

  // Opens libcuda and loads every entry point; on failure returns the report to emit.
  std::optional<json> open() {
    if (!lib.open_first(library_candidates({"libcuda.so.1"}, driver_library_dirs(), true))) {
      return lib.missing_report("libcuda.so.1");
    }
    // cuEventElapsedTime_v2 exists only from driver 12.8; the same signature predates it.
    const bool complete =
        lib.load_either(event_elapsed_time, "cuEventElapsedTime_v2", "cuEventElapsedTime") &&
        lib.load(init, "cuInit") && lib.load(get_error_name, "cuGetErrorName") &&
        lib.load(device_get_count, "cuDeviceGetCount") && lib.load(device_get, "cuDeviceGet") &&
        lib.load(device_get_attribute, "cuDeviceGetAttribute") &&
        lib.load(primary_ctx_retain, "cuDevicePrimaryCtxRetain") &&
        lib.load(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2") &&
        lib.load(ctx_set_current, "cuCtxSetCurrent") &&
        lib.load(ctx_synchronize, "cuCtxSynchronize") && lib.load(mem_alloc, "cuMemAlloc_v2") &&
        lib.load(mem_free, "cuMemFree_v2") && lib.load(memcpy_htod, "cuMemcpyHtoD_v2") &&
        lib.load(memcpy_dtoh, "cuMemcpyDtoH_v2") && lib.load(memset_d32, "cuMemsetD32_v2") &&
        lib.load(stream_create, "cuStreamCreate") &&
        lib.load(stream_synchronize, "cuStreamSynchronize") &&
        lib.load(stream_destroy, "cuStreamDestroy_v2") &&
        lib.load(module_load_data, "cuModuleLoadData") &&
        lib.load(module_get_function, "cuModuleGetFunction") &&
        lib.load(module_unload, "cuModuleUnload") && lib.load(launch_kernel, "cuLaunchKernel") &&
        lib.load(event_create, "cuEventCreate") && lib.load(event_record, "cuEventRecord") &&
        lib.load(event_synchronize, "cuEventSynchronize") &&
        lib.load(event_destroy, "cuEventDestroy_v2");
    if (!complete) {
      return json{{"status", "error"},
                  {"library_path", lib.path()},
                  {"error", "`" + lib.path() + "` lacks driver API entry points this probe needs"}};
    }
    return std::nullopt;
  }

  json error(const char* call, CUresult code) const {
    const char* name = nullptr;
    if (get_error_name != nullptr) get_error_name(code, &name);
    const int number = static_cast<int>(code);
    return {{"call", call},
            {"code", number},
            {"name", name != nullptr ? name : "CUDA_ERROR_" + std::to_string(number)}};
  }

  void check(CUresult code, const char* call) const {
    if (code != CUDA_SUCCESS) throw CudaFailure(error(call, code));
  }

  // cuInit and the device count; status "no_device"/"error" comes back as a report.
  std::optional<json> start(int& device_count) const {
    if (const CUresult rc = init(0); rc != CUDA_SUCCESS) {
      return json{{"status", rc == CUDA_ERROR_NO_DEVICE ? "no_device" : "error"},
                  {"error", error("cuInit", rc)}};
    }
    if (const CUresult rc = device_get_count(&device_count); rc != CUDA_SUCCESS) {
      return json{{"status", "error"}, {"error", error("cuDeviceGetCount", rc)}};
    }
    if (device_count == 0) {
      return json{{"status", "no_device"},
                  {"error", error("cuDeviceGetCount", CUDA_ERROR_NO_DEVICE)}};
    }
    return std::nullopt;
  }

  // open() then start(); a failure report carries what the caller already found (`so_far`),
  // so a probe that loaded NVRTC or NCCL still says so when the driver is missing.
  std::optional<json> open_and_start(int& device_count, const json& so_far) {
    std::optional<json> failure = open();
    if (!failure) failure = start(device_count);
    if (failure) failure->update(so_far);
    return failure;
  }
};

}  // namespace bevenv::probe_tool
