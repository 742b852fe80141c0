// Rules over the kernel and NCCL probe sections.
#include <cstdio>

#include "rules.hpp"

namespace bevenv::probes::rules {
namespace {

std::string error_name(const json& error) {
  if (error.is_string()) return error.get<std::string>();
  if (!error.is_object()) return "error";
  std::string text = error.value("name", "error");
  if (error.contains("code")) text += " (" + std::to_string(error.value("code", 0)) + ")";
  if (error.contains("call")) text += " from `" + error.value("call", "") + "`";
  return text;
}

// The catalogued failure a failed launch most likely is, by the error the probe saw; the detail
// (the error name) lets doctor's wording confirm it against the catalogue's patterns.
std::string kernel_failure(const json& error) {
  const std::string name = error.is_object() ? error.value("name", "") : "";
  if (name == "CUDA_ERROR_UNSUPPORTED_PTX_VERSION") return "cuda-unsupported-ptx";
  if (name == "CUDA_ERROR_NO_BINARY_FOR_GPU" || name == "CUDA_ERROR_INVALID_IMAGE") return "F10";
  if (name == "NVRTC_ERROR_INVALID_OPTION") return "nvrtc-unknown-arch";
  return "gpu-xid";
}

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, ms < 1 ? "%.3f ms" : "%.1f ms", ms);
  return text;
}

void kernel(const json& report, std::vector<Finding>& out) {
  const std::string status = status_of(report, "kernel");
  if (status.empty() || status == "no_device") return;  // the driver finding says why
  const json& section = report["kernel"];
  const json nvrtc = section.value("nvrtc", json::object());
  const std::string nvrtc_version = nvrtc.value("version", "?");
  if (status == "missing") {
    if (section.value("library", "") == "libcuda.so.1") return;  // the driver finding covers it
    out.push_back(failure_finding("kernel", Severity::warning,
                                  "NVRTC not found: the kernel probe did not run",
                                  "cuda-library-missing"));
    return;
  }
  if (status == "unsupported") {
    out.push_back(make_finding("kernel", Severity::warning, "this bevenv-probe has no kernel probe",
                               "use a bevenv-probe built with CUDA headers"));  // bevenv's own
    return;
  }
  if (status == "timeout" || status == "crashed") {
    out.push_back(
        failure_finding("kernel", Severity::problem,
                        "the kernel probe " + std::string(status == "timeout" ? "hung" : "crashed"),
                        "gpu-xid", {}, section.value("error", "")));
    return;
  }
  for (const auto& device : section.value("devices", json::array())) {
    const std::string index = std::to_string(device.value("index", 0));
    if (device.value("status", "") == "ok") {
      out.push_back(
          make_finding("kernel", Severity::ok,
                       "kernel probe on GPU " + index + ": NVRTC " + nvrtc_version + " " +
                           device.value("arch", "?") + " " + device.value("image", "cubin") +
                           ", launch, " + std::to_string(device.value("elements", 0)) +
                           " elements verified in " + ms_text(device.value("kernel_ms", 0.0))));
      continue;
    }
    const json error = device.value("error", json(nullptr));
    std::string title = "kernel probe on GPU " + index + " failed: ";
    title += device.contains("wrong_elements")
                 ? std::to_string(device.value("wrong_elements", 0)) + " wrong results"
                 : error_name(error);
    std::string detail = error_name(error);
    if (error.is_object() && !error.value("log", "").empty())
      detail += "; " + error.value("log", "");
    out.push_back(failure_finding("kernel", Severity::problem, title, kernel_failure(error),
                                  {{"nvrtc", nvrtc_version}}, detail));
  }
  if (status == "error" && !section.contains("devices")) {
    const std::string error = error_name(section.value("error", json(nullptr)));
    out.push_back(failure_finding("kernel", Severity::problem, "kernel probe failed: " + error,
                                  "gpu-xid", {}, error));
  }
}

void nccl(const json& report, std::vector<Finding>& out) {
  const std::string status = status_of(report, "nccl");
  if (status.empty() || status == "no_device") return;
  const json& section = report["nccl"];
  if (status == "missing") {
    if (section.value("library", "") == "libcuda.so.1") return;
    out.push_back(failure_finding("nccl", Severity::warning,
                                  "`libnccl.so.2` not found: NCCL not probed",
                                  "cuda-library-missing"));
    return;
  }
  if (status == "unsupported") return;
  const std::string version = section.value("version", "");
  const int gpus = section.value("gpus", 0);
  if (status == "ok") {
    std::string title = "NCCL " + version + " all-reduce over " + std::to_string(gpus) + " GPU" +
                        (gpus == 1 ? "" : "s") + ": correct";
    for (const auto& result : section.value("results", json::array())) {
      if (gpus > 1 && result.value("bytes", 0ULL) == 64ULL * 1024 * 1024) {
        char text[64];
        std::snprintf(text, sizeof text, ", busbw %.1f GB/s at 64 MiB",
                      result.value("busbw_gbps", 0.0));
        title += text;
      }
    }
    out.push_back(make_finding("nccl", Severity::ok, title));
    return;
  }
  const std::string what = status == "timeout" ? "hung"
                           : status == "crashed"
                               ? "crashed"
                               : "failed: " + error_name(section.value("error", json(nullptr)));
  out.push_back(
      failure_finding("nccl", Severity::problem, "NCCL all-reduce " + what, "F11", {},
                      status == "error" ? error_name(section.value("error", json(nullptr))) : ""));
}

}  // namespace

void kernel_nccl_findings(const json& report, std::vector<Finding>& out) {
  kernel(report, out);
  nccl(report, out);
}

}  // namespace bevenv::probes::rules
