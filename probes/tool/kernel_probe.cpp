// The kernel probe: NVRTC compiles a tiny kernel to a CUBIN for the device's exact sm_XY, the
// driver loads and launches it, and the host checks every element. This is the path that
// fails with "no kernel image is available" or a PTX version error when stacks mismatch.
#include <nvrtc.h>

#include <chrono>
#include <fstream>
#include <map>
#include <variant>

#include "cuda_driver.hpp"

namespace bevenv::probe_tool {
namespace {

constexpr const char* kKernelSource = R"(
extern "C" __global__ void bevenv_probe_affine(float a, const float* in, float* out,
                                               unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + 1.0f;
}
)";
constexpr unsigned int kElements = 1u << 20;
constexpr unsigned int kBlock = 256;
constexpr int kTimedLaunches = 10;

struct Nvrtc {
  DynamicLibrary lib;
  decltype(&::nvrtcVersion) version = nullptr;
  decltype(&::nvrtcGetErrorString) error_string = nullptr;
  decltype(&::nvrtcCreateProgram) create_program = nullptr;
  decltype(&::nvrtcDestroyProgram) destroy_program = nullptr;
  decltype(&::nvrtcCompileProgram) compile_program = nullptr;
  decltype(&::nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&::nvrtcGetProgramLog) log = nullptr;
  decltype(&::nvrtcGetPTXSize) ptx_size = nullptr;
  decltype(&::nvrtcGetPTX) ptx = nullptr;
  decltype(&::nvrtcGetCUBINSize) cubin_size = nullptr;  // NVRTC >= 11.1
  decltype(&::nvrtcGetCUBIN) cubin = nullptr;
  decltype(&::nvrtcGetNumSupportedArchs) num_supported_archs = nullptr;  // NVRTC >= 11.2
  decltype(&::nvrtcGetSupportedArchs) supported_archs = nullptr;

  bool open(const std::vector<std::string>& python_lib_dirs) {
    std::vector<std::string> dirs = toolkit_library_dirs();
    dirs.insert(dirs.end(), python_lib_dirs.begin(), python_lib_dirs.end());
    const std::vector<std::string> names{"libnvrtc.so.13",   "libnvrtc.so.12",   "libnvrtc.so.11.2",
                                         "libnvrtc.so.11.1", "libnvrtc.so.11.0", "libnvrtc.so"};
    if (!lib.open_first(library_candidates(names, dirs, false))) return false;
    lib.load(cubin_size, "nvrtcGetCUBINSize");
    lib.load(cubin, "nvrtcGetCUBIN");
    lib.load(num_supported_archs, "nvrtcGetNumSupportedArchs");
    lib.load(supported_archs, "nvrtcGetSupportedArchs");
    return lib.load(version, "nvrtcVersion") && lib.load(error_string, "nvrtcGetErrorString") &&
           lib.load(create_program, "nvrtcCreateProgram") &&
           lib.load(destroy_program, "nvrtcDestroyProgram") &&
           lib.load(compile_program, "nvrtcCompileProgram") &&
           lib.load(log_size, "nvrtcGetProgramLogSize") && lib.load(log, "nvrtcGetProgramLog") &&
           lib.load(ptx_size, "nvrtcGetPTXSize") && lib.load(ptx, "nvrtcGetPTX");
  }

  json describe() const {
    json out{{"library_path", lib.path()}};
    int major = 0;
    int minor = 0;
    if (version(&major, &minor) == NVRTC_SUCCESS) {
      out["version"] = std::to_string(major) + "." + std::to_string(minor);
    }
    int count = 0;
    if (num_supported_archs != nullptr && supported_archs != nullptr &&
        num_supported_archs(&count) == NVRTC_SUCCESS && count > 0) {
      std::vector<int> archs(static_cast<std::size_t>(count));
      if (supported_archs(archs.data()) == NVRTC_SUCCESS) {
        json names = json::array();
        for (int arch : archs) names.push_back("sm_" + std::to_string(arch));
        out["supported_archs"] = names;
      }
    }
    return out;
  }

  json error(const char* call, nvrtcResult code) const {
    return {{"call", call}, {"code", static_cast<int>(code)}, {"name", error_string(code)}};
  }
};

struct Compiled {
  std::string image;
  std::string kind;  // "cubin", or "ptx" where this NVRTC cannot emit a CUBIN
  double compile_ms = 0;
};

// Compiles the probe kernel for `arch` ("sm_90"); returns the image or the error report.
std::variant<Compiled, json> compile(const Nvrtc& nvrtc, const std::string& arch) {
  const bool want_cubin = nvrtc.cubin != nullptr && nvrtc.cubin_size != nullptr;
  const std::string target = want_cubin ? arch : "compute_" + arch.substr(3);
  const std::string flag = "--gpu-architecture=" + target;
  const auto start = std::chrono::steady_clock::now();
  nvrtcProgram program = nullptr;
  if (const auto rc =
          nvrtc.create_program(&program, kKernelSource, "bevenv_probe.cu", 0, nullptr, nullptr);
      rc != NVRTC_SUCCESS) {
    return nvrtc.error("nvrtcCreateProgram", rc);
  }
  const char* flags[] = {flag.c_str()};
  const nvrtcResult compiled = nvrtc.compile_program(program, 1, flags);
  std::size_t log_bytes = 0;
  std::string log;
  if (nvrtc.log_size(program, &log_bytes) == NVRTC_SUCCESS && log_bytes > 1) {
    log.resize(log_bytes);
    nvrtc.log(program, log.data());
    log.resize(log_bytes - 1);
  }
  Compiled out;
  out.kind = want_cubin ? "cubin" : "ptx";
  nvrtcResult fetched = compiled;
  if (compiled == NVRTC_SUCCESS) {
    std::size_t size = 0;
    fetched = want_cubin ? nvrtc.cubin_size(program, &size) : nvrtc.ptx_size(program, &size);
    if (fetched == NVRTC_SUCCESS) {
      out.image.resize(size);
      fetched = want_cubin ? nvrtc.cubin(program, out.image.data())
                           : nvrtc.ptx(program, out.image.data());
    }
  }
  nvrtc.destroy_program(&program);
  if (compiled != NVRTC_SUCCESS || fetched != NVRTC_SUCCESS) {
    json error = nvrtc.error(compiled != NVRTC_SUCCESS ? "nvrtcCompileProgram" : "nvrtcGetCUBIN",
                             compiled != NVRTC_SUCCESS ? compiled : fetched);
    error["options"] = flag;
    error["log"] = log;
    return error;
  }
  out.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Loads, launches and verifies the kernel on one device.
json run_on_device(const CudaDriver& cu, int ordinal, const Compiled& compiled) {
  json out{{"index", ordinal}};
  CUdevice device = 0;
  cu.check(cu.device_get(&device, ordinal), "cuDeviceGet");
  auto start = std::chrono::steady_clock::now();
  CUcontext context = nullptr;
  cu.check(cu.primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain");
  cu.check(cu.ctx_set_current(context), "cuCtxSetCurrent");
  out["context_ms"] = ms_since(start);

  start = std::chrono::steady_clock::now();
  CUmodule module = nullptr;
  cu.check(cu.module_load_data(&module, compiled.image.data()), "cuModuleLoadData");
  out["module_load_ms"] = ms_since(start);  // large when the driver JIT-compiles PTX (F10)
  CUfunction function = nullptr;
  cu.check(cu.module_get_function(&function, module, "bevenv_probe_affine"), "cuModuleGetFunction");

  std::vector<float> input(kElements);
  for (unsigned int i = 0; i < kElements; ++i) input[i] = static_cast<float>(i % 1024) * 0.5f;
  const std::size_t bytes = kElements * sizeof(float);
  CUdeviceptr device_in = 0;
  CUdeviceptr device_out = 0;
  cu.check(cu.mem_alloc(&device_in, bytes), "cuMemAlloc");
  cu.check(cu.mem_alloc(&device_out, bytes), "cuMemAlloc");
  cu.check(cu.memcpy_htod(device_in, input.data(), bytes), "cuMemcpyHtoD");

  float scale = 2.0f;
  unsigned int count = kElements;
  void* params[] = {&scale, &device_in, &device_out, &count};
  const unsigned int grid = (kElements + kBlock - 1) / kBlock;
  auto launch = [&] {
    cu.check(cu.launch_kernel(function, grid, 1, 1, kBlock, 1, 1, 0, nullptr, params, nullptr),
             "cuLaunchKernel");
  };
  start = std::chrono::steady_clock::now();
  launch();
  cu.check(cu.ctx_synchronize(), "cuCtxSynchronize");
  out["first_launch_ms"] = ms_since(start);

  CUevent begin = nullptr;
  CUevent end = nullptr;
  cu.check(cu.event_create(&begin, CU_EVENT_DEFAULT), "cuEventCreate");
  cu.check(cu.event_create(&end, CU_EVENT_DEFAULT), "cuEventCreate");
  cu.check(cu.event_record(begin, nullptr), "cuEventRecord");
  for (int i = 0; i < kTimedLaunches; ++i) launch();
  cu.check(cu.event_record(end, nullptr), "cuEventRecord");
  cu.check(cu.event_synchronize(end), "cuEventSynchronize");
  float elapsed = 0;
  cu.check(cu.event_elapsed_time(&elapsed, begin, end), "cuEventElapsedTime");
  const double kernel_ms = static_cast<double>(elapsed) / kTimedLaunches;
  out["kernel_ms"] = kernel_ms;
  out["bandwidth_gbps"] = 2.0 * static_cast<double>(bytes) / (kernel_ms * 1e6);

  std::vector<float> result(kElements);
  cu.check(cu.memcpy_dtoh(result.data(), device_out, bytes), "cuMemcpyDtoH");
  std::size_t wrong = 0;
  json first_wrong;
  for (unsigned int i = 0; i < kElements; ++i) {
    const float expected = static_cast<float>(i % 1024) + 1.0f;  // exact in float
    if (result[i] != expected) {
      if (wrong == 0) {
        first_wrong = {{"index", i}, {"got", result[i]}, {"expected", expected}};
      }
      ++wrong;
    }
  }
  out["elements"] = kElements;
  out["wrong_elements"] = wrong;
  if (wrong != 0) out["first_wrong"] = first_wrong;
  out["status"] = wrong == 0 ? "ok" : "error";
  cu.event_destroy(begin);
  cu.event_destroy(end);
  cu.mem_free(device_in);
  cu.mem_free(device_out);
  cu.module_unload(module);
  cu.primary_ctx_release(device);
  return out;
}

std::string device_arch(const CudaDriver& cu, int ordinal) {
  CUdevice device = 0;
  cu.check(cu.device_get(&device, ordinal), "cuDeviceGet");
  int major = 0;
  int minor = 0;
  cu.check(cu.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
           "cuDeviceGetAttribute");
  cu.check(cu.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
           "cuDeviceGetAttribute");
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

json compile_only(const Nvrtc& nvrtc, const Options& options, json out) {
  const std::string& arch = *options.arch;
  auto compiled = compile(nvrtc, arch);
  if (auto* error = std::get_if<json>(&compiled)) {
    out["status"] = "error";
    out["error"] = *error;
    return out;
  }
  const auto& image = std::get<Compiled>(compiled);
  std::ofstream file(*options.compile_only_path, std::ios::binary | std::ios::trunc);
  file.write(image.image.data(), static_cast<std::streamsize>(image.image.size()));
  file.close();
  if (!file) {
    out["status"] = "error";
    out["error"] = "cannot write `" + *options.compile_only_path + "`";
    return out;
  }
  out["status"] = "ok";
  out["compile_only"] = {{"arch", arch},
                         {"kind", image.kind},
                         {"path", *options.compile_only_path},
                         {"bytes", image.image.size()},
                         {"compile_ms", image.compile_ms}};
  return out;
}

}  // namespace

bool kernel_probe_built() { return true; }

json probe_kernel(const Options& options, const std::vector<std::string>& python_lib_dirs) {
  // Where the probe's time goes before the per-device steps: loading NVRTC, then the driver.
  auto start = std::chrono::steady_clock::now();
  Nvrtc nvrtc;
  if (!nvrtc.open(python_lib_dirs)) {
    json out = nvrtc.lib.missing_report("libnvrtc");
    out["nvrtc"] = {{"status", "missing"}};
    return out;
  }
  json out{{"nvrtc", nvrtc.describe()}};
  out["nvrtc_open_ms"] = ms_since(start);
  if (options.compile_only_path) return compile_only(nvrtc, options, out);

  start = std::chrono::steady_clock::now();
  CudaDriver cu;
  int count = 0;
  if (auto failure = cu.open_and_start(count, out)) return *failure;
  out["driver_start_ms"] = ms_since(start);
  std::map<std::string, Compiled> images;
  json devices = json::array();
  bool all_ok = true;
  for (int i = 0; i < count; ++i) {
    json device;
    std::string arch;
    try {
      arch = options.arch ? *options.arch : device_arch(cu, i);
      if (!images.count(arch)) {
        auto compiled = compile(nvrtc, arch);
        if (auto* error = std::get_if<json>(&compiled)) {
          devices.push_back({{"index", i}, {"arch", arch}, {"status", "error"}, {"error", *error}});
          all_ok = false;
          continue;
        }
        images.emplace(arch, std::get<Compiled>(compiled));
      }
      const Compiled& image = images.at(arch);
      device = run_on_device(cu, i, image);
      device["arch"] = arch;
      device["image"] = image.kind;
      device["compile_ms"] = image.compile_ms;
    } catch (const CudaFailure& failure) {
      device = {{"index", i}, {"status", "error"}, {"error", failure.error()}};
      if (!arch.empty()) device["arch"] = arch;
    }
    all_ok = all_ok && device.value("status", "") == "ok";
    devices.push_back(device);
  }
  out["devices"] = devices;
  out["status"] = all_ok ? "ok" : "error";
  return out;
}

}  // namespace bevenv::probe_tool
