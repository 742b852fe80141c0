// `bevenv doctor --record`: the machine's own facts (driver, GPUs, how the kernel probe ran on
// each, NCCL, /dev/shm) as one `[[observed_host]]` record, read back by `bevenv lock` on this
// host as its target (src/app/src/lock_target_observed.cpp).
#include "doctor_record_host.hpp"

#include <set>

#include "bevenv/util/toml_string.hpp"
#include "doctor_internal.hpp"

namespace bevenv::app {
namespace {

using doctor_detail::json;
using doctor_detail::section_if_ok;
using util::toml_basic_string;

// arch -> `cubin`, `ptx` or `fail`: how the kernel probe's module ran there. A failure on any
// device of an architecture is the architecture's verdict.
std::map<std::string, std::string> kernel_images(const json& report) {
  std::map<std::string, std::string> out;
  for (const auto& device : section_if_ok(report, "kernel").value("devices", json::array())) {
    if (!device.is_object()) continue;
    const std::string arch = device.value("arch", "");
    if (arch.empty()) continue;
    const bool ran = device.value("status", "") == "ok";
    const std::string image = ran ? device.value("image", "") : "fail";
    if (image.empty()) continue;
    auto& slot = out[arch];
    if (slot != "fail") slot = image;
  }
  return out;
}

// `ok` when the all-reduce ran and was correct; `fail` when it ran and went wrong; empty when
// it did not run (no device, no libnccl, skipped).
std::string nccl_outcome(const json& report) {
  if (!report.contains("nccl") || !report["nccl"].is_object()) return {};
  const std::string status = report["nccl"].value("status", "");
  if (status == "ok") return report["nccl"].value("correct", false) ? "ok" : "fail";
  if (status == "timeout" || status == "crashed" || status == "error") return "fail";
  return {};
}

std::optional<std::int64_t> shm_bytes(const json& report) {
  const json& host = section_if_ok(report, "host");
  if (!host.contains("shm") || !host["shm"].is_object()) return std::nullopt;
  const json& shm = host["shm"];
  if (!shm.contains("total_bytes") || !shm["total_bytes"].is_number_integer()) return std::nullopt;
  return shm["total_bytes"].get<std::int64_t>();
}

std::vector<std::string> device_archs(const json& report) {
  std::vector<std::string> out;
  for (const auto& device : section_if_ok(report, "driver").value("devices", json::array())) {
    if (device.is_object() && !device.value("sm", "").empty())
      out.push_back(device.value("sm", ""));
  }
  return out;
}

}  // namespace

std::optional<HostFacts> host_facts_of(const nlohmann::json& report) {
  HostFacts facts;
  facts.driver = doctor_detail::driver_version(report);
  facts.cuda_driver = doctor_detail::driver_cuda(report);
  facts.gpus = device_archs(report);
  // Without the driver's version, its CUDA version and a GPU there is no target to record.
  if (facts.driver.empty() || facts.cuda_driver.empty() || facts.gpus.empty()) return std::nullopt;
  const json& host = section_if_ok(report, "host");
  facts.hostname = host.value("hostname", "");
  if (facts.hostname.empty()) return std::nullopt;
  facts.kernels = kernel_images(report);
  if (const json& nccl = section_if_ok(report, "nccl"); !nccl.empty()) {
    facts.nccl_version = nccl.value("version", "");
  }
  facts.nccl_outcome = nccl_outcome(report);
  facts.shm_bytes = shm_bytes(report);
  return facts;
}

std::string host_record_text(const HostFacts& facts, const std::string& fingerprint,
                             const std::string& date) {
  std::string text = "\n[[observed_host]]\n";
  text += "host = " + toml_basic_string(fingerprint) + "\n";
  text += "hostname = " + toml_basic_string(facts.hostname) + "\n";
  text += "date = " + toml_basic_string(date) + "\n";
  text += "driver = " + toml_basic_string(facts.driver) + "\n";
  text += "cuda_driver = " + toml_basic_string(facts.cuda_driver) + "\n";
  std::string gpus;
  for (const auto& gpu : facts.gpus) gpus += (gpus.empty() ? "" : ", ") + toml_basic_string(gpu);
  text += "gpus = [" + gpus + "]\n";
  if (!facts.kernels.empty()) {
    std::string kernels;
    for (const auto& [arch, image] : facts.kernels) {
      kernels += (kernels.empty() ? "" : ", ") + arch + " = " + toml_basic_string(image);
    }
    text += "kernels = { " + kernels + " }\n";
  }
  if (!facts.nccl_version.empty())
    text += "nccl_version = " + toml_basic_string(facts.nccl_version) + "\n";
  if (!facts.nccl_outcome.empty())
    text += "nccl_outcome = " + toml_basic_string(facts.nccl_outcome) + "\n";
  if (facts.shm_bytes) text += "shm_bytes = " + std::to_string(*facts.shm_bytes) + "\n";
  return text;
}

std::string previous_host_record(const std::string& previous) {
  const std::string header = "\n[[observed_host]]\n";
  const auto start = previous.find(header);
  if (start == std::string::npos) return {};
  const auto end = previous.find("\n[[", start + header.size());
  std::string block =
      previous.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
  while (block.size() > 1 && block[block.size() - 1] == '\n' && block[block.size() - 2] == '\n')
    block.pop_back();
  return block;
}

}  // namespace bevenv::app
