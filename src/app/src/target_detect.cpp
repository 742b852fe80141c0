#include "target_detect.hpp"

#include <filesystem>

#include "bevenv/core/error.hpp"
#include "doctor_probe.hpp"

namespace bevenv::app {
namespace {

bool driver_loaded() {
  std::error_code error;
  return std::filesystem::exists("/proc/driver/nvidia/version", error) ||
         std::filesystem::exists("/dev/nvidiactl", error);
}

// `9.0` -> `sm_90`; empty when the text is not a compute capability.
std::string sm_name(const std::string& capability) {
  const auto dot = capability.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= capability.size()) return {};
  return "sm_" + capability.substr(0, dot) + capability.substr(dot + 1);
}

void read_nvml(const nlohmann::json& nvml, DetectedTarget& out) {
  if (nvml.value("status", "") != "ok") {
    out.problem = "NVML: " + nvml.value("error", nvml.value("status", std::string("no report")));
    return;
  }
  if (nvml.contains("cuda_version") && nvml["cuda_version"].is_string())
    out.cuda_driver = nvml["cuda_version"].get<std::string>();
  out.driver_version = nvml.value("driver_version", "");
  for (const auto& device : nvml.value("devices", nlohmann::json::array())) {
    if (!device.is_object() || !device.contains("compute_capability")) continue;
    if (!device["compute_capability"].is_string()) continue;
    const std::string sm = sm_name(device["compute_capability"].get<std::string>());
    if (!sm.empty()) out.gpus.push_back(sm);
  }
  if (!out.cuda_driver) out.problem = "NVML reported no CUDA version";
}

}  // namespace

std::optional<DetectedTarget> detect_target() {
  if (!driver_loaded()) return std::nullopt;
  DetectedTarget out;
  try {
    ProbeRequest request;
    request.probe = find_probe(std::nullopt, {});
    request.only = {"nvml"};
    request.timeout = std::chrono::seconds(5);
    const ProbeRun run = run_probe(request);
    out.duration_ms = run.duration_ms;
    read_nvml(run.report.value("nvml", nlohmann::json::object()), out);
  } catch (const core::Error& error) {
    out.problem = error.what();
  }
  return out;
}

}  // namespace bevenv::app
