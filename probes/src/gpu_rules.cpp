// Rules over the driver, NVML, kernel and NCCL sections of a probe report.
#include <algorithm>
#include <map>

#include "rules.hpp"

namespace bevenv::probes::rules {
namespace {

std::string error_text(const json& section) {
  if (!section.contains("error")) return "";
  const json& error = section["error"];
  if (error.is_string()) return error.get<std::string>();
  if (!error.is_object()) return "";
  std::string text = error.value("name", "error");
  if (error.contains("code")) text += " (" + std::to_string(error.value("code", 0)) + ")";
  if (error.contains("call")) text += " from " + error.value("call", "");
  return text;
}

std::string driver_version_text(const json& report) {
  if (status_of(report, "nvml") == "ok") return report["nvml"].value("driver_version", "");
  return "";
}

void driver_status(const json& report, const Expectations& expectations,
                   std::vector<Finding>& out) {
  const std::string status = status_of(report, "driver");
  if (status.empty()) return;
  const json& driver = report["driver"];
  if (status == "ok") {
    const std::string version = driver_version_text(report);
    std::string title = version.empty() ? "driver" : "driver " + version;
    title += ", supports CUDA ≤ " + driver.value("cuda_version", "?");
    if (driver.value("cuda_version_overridden", false)) {
      title += " (overridden; really " + driver.value("real_cuda_version", "?") + ")";
    }
    out.push_back(make_finding("driver", Severity::ok, title));
  } else if (status == "missing" && !expectations.gpu_needed) {
    out.push_back(make_finding("driver", Severity::ok,
                               "no NVIDIA driver, and none needed: the lock is for no GPU"));
  } else if (status == "missing") {
    out.push_back(failure_finding("driver", Severity::problem,
                                  "no NVIDIA driver: `libcuda.so.1` not found",
                                  "nvidia-driver-missing", {}, error_text(driver)));
  } else if (status == "no_device") {
    const std::string visible =
        report.contains("host")
            ? report["host"].value("env", json::object()).value("CUDA_VISIBLE_DEVICES", "")
            : "";
    std::string title = "the driver is loaded but sees no GPU (CUDA_ERROR_NO_DEVICE)";
    if (!visible.empty()) title += " with `CUDA_VISIBLE_DEVICES=" + visible + "`";
    out.push_back(failure_finding("driver", Severity::problem, title, "no-cuda-device",
                                  {{"visible", visible}}, error_text(driver)));
  } else if (status == "timeout" || status == "crashed") {
    out.push_back(failure_finding("driver", Severity::problem,
                                  "the CUDA driver " +
                                      std::string(status == "timeout" ? "hung" : "crashed") +
                                      " during initialisation",
                                  "gpu-xid", {}, error_text(driver)));
  } else {
    // The error name in the detail picks the catalogued failure (a stub `libcuda`, a driver
    // older than the runtime, ...); an unknown one is worth a look at the kernel log.
    out.push_back(failure_finding("driver", Severity::problem,
                                  "CUDA initialisation failed: " + error_text(driver), "gpu-xid",
                                  {}, error_text(driver)));
  }
}

// Whether the driver can run code built for CUDA `wanted`; `what` names who wants it.
void cuda_vs_driver(const json& report, const Expectations& expectations, const std::string& check,
                    const std::string& what, const std::string& wanted, std::vector<Finding>& out) {
  if (!report.contains("driver") || !report["driver"].is_object()) return;
  const std::string supported = report["driver"].value("cuda_version", "");
  if (supported.empty()) return;
  const auto have = major_minor(supported);
  const auto want = major_minor(wanted);
  const auto floor = expectations.minimum_driver_for_cuda(wanted);
  std::vector<std::pair<std::string, std::string>> facts{
      {"cuda", wanted}, {"supported", supported}, {"major", std::to_string(have.first)}};
  if (floor) facts.emplace_back("driver", *floor);
  if (want <= have) {
    out.push_back(
        make_finding(check, Severity::ok,
                     what + " CUDA " + wanted + " runs on this driver (CUDA ≤ " + supported + ")"));
    return;
  }
  const std::string needs = floor ? "driver ≥ " + *floor : "a newer driver";
  if (want.first == have.first && want.first >= 11) {
    out.push_back(failure_finding(check, Severity::warning,
                                  what + " CUDA " + wanted + " is newer than the driver's CUDA " +
                                      supported +
                                      "; it runs only through minor-version "
                                      "compatibility (no PTX JIT)",
                                  "cuda-unsupported-ptx", std::move(facts)));
    return;
  }
  out.push_back(failure_finding(
      check, Severity::problem,
      what + " CUDA " + wanted + " needs " + needs + "; this driver supports CUDA ≤ " + supported,
      "cuda-driver-too-old", std::move(facts)));
}

const json& driver_devices(const json& report) {
  static const json empty = json::array();
  if (status_of(report, "driver") != "ok" || !report["driver"].contains("devices")) return empty;
  return report["driver"]["devices"];
}

// GPU architectures present: from the driver, else from torch inside the Python probe.
std::vector<std::string> gpu_sms(const json& report) {
  std::vector<std::string> sms;
  auto add = [&](const std::string& sm) {
    if (!sm.empty() && std::find(sms.begin(), sms.end(), sm) == sms.end()) sms.push_back(sm);
  };
  for (const auto& device : driver_devices(report)) add(device.value("sm", ""));
  if (sms.empty() && status_of(report, "python") == "ok") {
    const json& torch = report["python"].value("torch", json::object());
    for (const auto& device : torch.value("devices", json::array())) {
      const std::string capability = device.value("capability", "");
      if (capability.size() >= 3)
        add("sm_" + capability.substr(0, capability.find('.')) +
            capability.substr(capability.find('.') + 1));
    }
  }
  return sms;
}

void gpu_summary(const json& report, const Expectations& expectations, std::vector<Finding>& out) {
  const json& devices = driver_devices(report);
  if (devices.empty()) return;
  std::map<std::string, int> groups;
  double smallest = 0;
  for (const auto& device : devices) {
    const double bytes = device.value("memory_total_bytes", 0.0);
    groups[device.value("name", "GPU") + " (" + device.value("sm", "?") + ", " + gib_text(bytes) +
           ")"] += 1;
    if (smallest == 0 || bytes < smallest) smallest = bytes;
  }
  std::string title;
  for (const auto& [name, count] : groups) {
    title += (title.empty() ? "" : ", ") + std::to_string(count) + " × " + name;
  }
  out.push_back(make_finding("gpus", Severity::ok, title));
  if (status_of(report, "nvml") == "ok") {
    for (const auto& device : report["nvml"].value("devices", json::array())) {
      if (device.value("mig", json(nullptr)) == "enabled") {
        out.push_back(failure_finding("mig", Severity::warning,
                                      "MIG mode is on for GPU " +
                                          std::to_string(device.value("index", 0)) +
                                          ": CUDA sees only its MIG instances",
                                      "mig-enabled"));
      }
    }
  }
  if (expectations.gpu_memory_gib && smallest > 0) {
    const double need = *expectations.gpu_memory_gib * 1024.0 * 1024.0 * 1024.0;
    if (smallest < need) {
      out.push_back(failure_finding("gpu-memory", Severity::warning,
                                    "GPU memory " + gib_text(smallest) + " < " + gib_text(need) +
                                        " that this profile's training needs per GPU",
                                    "F8"));
    } else {
      out.push_back(make_finding("gpu-memory", Severity::ok,
                                 "GPU memory " + gib_text(smallest) + " ≥ " + gib_text(need) +
                                     " that this profile needs"));
    }
  }
}

// Rows may be short or missing in a saved report: a cell outside the matrix is "no access".
bool p2p_cell(const json& matrix, std::size_t row, std::size_t column) {
  return row < matrix.size() && matrix[row].is_array() && column < matrix[row].size() &&
         matrix[row][column] == true;
}

void p2p(const json& report, std::vector<Finding>& out) {
  if (status_of(report, "driver") != "ok" || !report["driver"].contains("p2p")) return;
  const json& matrix = report["driver"]["p2p"];
  if (!matrix.is_array()) return;
  // The devices say how many GPUs there are; a matrix with fewer rows lacks the rest.
  const json& devices = report["driver"].value("devices", json::array());
  const std::size_t gpus = std::max(matrix.size(), devices.is_array() ? devices.size() : 0);
  if (gpus < 2) return;
  std::string missing;
  for (std::size_t a = 0; a < gpus && missing.empty(); ++a) {
    for (std::size_t b = a + 1; b < gpus && missing.empty(); ++b) {
      if (!p2p_cell(matrix, a, b) || !p2p_cell(matrix, b, a)) {
        missing = "GPU " + std::to_string(a) + " and " + std::to_string(b);
      }
    }
  }
  if (missing.empty()) {
    out.push_back(make_finding("p2p", Severity::ok,
                               "P2P access between all " + std::to_string(gpus) + " GPUs"));
  } else {
    out.push_back(failure_finding(
        "p2p", Severity::warning,
        "no P2P access between " + missing + ": NCCL goes through host shared memory", "nccl-p2p"));
  }
}

}  // namespace

void gpu_findings(const json& report, const Expectations& expectations, std::vector<Finding>& out) {
  driver_status(report, expectations, out);
  if (expectations.cuda_version && report.contains("driver")) {
    cuda_vs_driver(report, expectations, "driver-cuda", "the lock's", *expectations.cuda_version,
                   out);
  }
  if (status_of(report, "python") == "ok" && report.contains("driver")) {
    const json& torch = report["python"].value("torch", json::object());
    if (torch.value("status", "") == "ok" && torch.contains("cuda") && torch["cuda"].is_string()) {
      cuda_vs_driver(report, expectations, "torch-cuda-driver",
                     "torch " + torch.value("version", "") + "'s", torch["cuda"].get<std::string>(),
                     out);
    }
  }
  gpu_summary(report, expectations, out);
  p2p(report, out);
  kernel_nccl_findings(report, out);

  const std::vector<std::string> sms = gpu_sms(report);
  const json torch = status_of(report, "python") == "ok"
                         ? report["python"].value("torch", json::object())
                         : json::object();
  const json torch_archs = torch.value("arch_list", json::array());
  for (const auto& sm : sms) {
    if (!torch_archs.empty()) {
      const std::string who = "torch " + torch.value("version", "");
      switch (arch_support(sm, torch_archs.get<std::vector<std::string>>())) {
        case ArchSupport::sass:
          out.push_back(
              make_finding("gpu-arch", Severity::ok,
                           who + " carries SASS for " + sm + " (no PTX JIT at start-up)"));
          break;
        case ArchSupport::ptx_jit:
          out.push_back(failure_finding("gpu-arch", Severity::warning,
                                        who + " has only PTX for " + sm +
                                            ": the driver JIT-compiles every kernel at first "
                                            "CUDA use",
                                        "ptx-jit", {{"sm", sm}}));
          break;
        case ArchSupport::none:
          out.push_back(failure_finding("gpu-arch", Severity::problem,
                                        who + " has no kernels for " + sm, "F10", {{"sm", sm}}));
          break;
      }
    }
    ops_arch_findings(report, expectations, sm, out);
  }
}

}  // namespace bevenv::probes::rules
