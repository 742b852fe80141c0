// Reading a bevenv-probe report, and judge_report(): the probes catalogue plus the lockfile and
// matrix checks that only `bevenv doctor` can make.
#include <algorithm>

#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "doctor_internal.hpp"

namespace bevenv::app {
namespace doctor_detail {

const json& section_if_ok(const json& report, const char* name) {
  static const json empty = json::object();
  if (!report.is_object() || !report.contains(name)) return empty;
  const json& section = report[name];
  if (!section.is_object() || section.value("status", "") != "ok") return empty;
  return section;
}

std::map<std::string, std::string> installed_versions(const json& report) {
  std::map<std::string, std::string> out;
  const json& python = section_if_ok(report, "python");
  for (const auto& dist : python.value("distributions", json::array())) {
    if (!dist.is_object()) continue;
    const std::string name = dist.value("name", "");
    const std::string version = dist.value("version", "");
    if (!name.empty() && !version.empty()) out.emplace(core::normalize_name(name), version);
  }
  return out;
}

std::string interpreter_version(const json& report) {
  return section_if_ok(report, "python").value("interpreter", json::object()).value("version", "");
}

std::string minor_of(const std::string& version) {
  const auto first = version.find('.');
  if (first == std::string::npos) return version;
  const auto second = version.find('.', first + 1);
  return second == std::string::npos ? version : version.substr(0, second);
}

std::vector<std::string> gpu_sms(const json& report) {
  std::vector<std::string> sms;
  auto add = [&](const std::string& sm) {
    if (!sm.empty() && std::find(sms.begin(), sms.end(), sm) == sms.end()) sms.push_back(sm);
  };
  for (const auto& device : section_if_ok(report, "driver").value("devices", json::array())) {
    add(device.value("sm", ""));
  }
  if (!sms.empty()) return sms;
  const json torch = section_if_ok(report, "python").value("torch", json::object());
  for (const auto& device : torch.value("devices", json::array())) {
    std::string capability = device.value("capability", "");
    capability.erase(std::remove(capability.begin(), capability.end(), '.'), capability.end());
    if (!capability.empty()) add("sm_" + capability);
  }
  return sms;
}

std::string driver_version(const json& report) {
  return section_if_ok(report, "nvml").value("driver_version", "");
}

std::string driver_cuda(const json& report) {
  return section_if_ok(report, "driver").value("cuda_version", "");
}

std::size_t gpu_count(const json& report) {
  const json& driver = section_if_ok(report, "driver");
  const json devices = driver.value("devices", json::array());
  return devices.is_array() ? devices.size() : 0;
}

std::optional<core::Version> parse_version(const std::string& text) {
  auto parsed = core::Version::parse(text);
  if (!parsed) return std::nullopt;
  return parsed.value();
}

std::vector<std::string> packages_of_check(const std::string& check) {
  if (check == "F1") return {"nuscenes-devkit"};
  if (check == "F2") return {"setuptools"};
  if (check == "F3") return {"yapf"};
  if (check == "F4") return {"torchpack"};
  if (check == "F5") return {"mmdet3d"};
  if (check == "mmcv-ops") return {"mmcv-full", "mmcv"};
  if (check == "mmcv-duplicate") return {"mmcv"};
  if (check == "gpu-arch" || check == "torch-cuda-driver" || check == "torch") return {"torch"};
  return {};
}

bool check_depends_on_gpu(const std::string& check) {
  return check == "gpu-arch" || check == "torch-cuda-driver";
}

}  // namespace doctor_detail

namespace {

using doctor_detail::json;

// TORCH_CUDA_ARCH_LIST is `;`- or space-separated (`7.0;7.5;8.6+PTX`, `7.0 7.5 8.0 8.6`).
std::vector<std::string> split_arch_list(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  for (const char c : text + ";") {
    if (c == ';' || c == ' ' || c == ',') {
      if (!current.empty()) out.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  return out;
}

probes::Expectations expectations_for(const json& report, const DoctorContext& ctx) {
  probes::Expectations expect;
  if (ctx.lock != nullptr) {
    // A lock for no GPU needs no driver (the GPU checks asked by name still fail without one:
    // `doctor --check gpus`).
    const lockfiles::Target& target = ctx.lock->target;
    expect.gpu_needed =
        !target.cuda_driver.empty() || !target.gpus.empty() || !ctx.lock->environment.cuda.empty();
    expect.target_archs = split_arch_list(ctx.lock->environment.torch_cuda_arch_list);
    for (const auto& build : ctx.lock->builds) {
      for (const auto& arch : split_arch_list(build.cuda_arch_list)) {
        if (std::find(expect.target_archs.begin(), expect.target_archs.end(), arch) ==
            expect.target_archs.end()) {
          expect.target_archs.push_back(arch);
        }
      }
    }
  }
  if (ctx.profile != nullptr) {
    expect.gpu_memory_gib = ctx.profile->train_gpu_memory_gib;
    if (ctx.profile->dataloader_workers_per_gpu) {
      expect.dataloader_workers = static_cast<int>(*ctx.profile->dataloader_workers_per_gpu);
    }
  }
  if (ctx.matrix != nullptr) {
    for (const auto& toolkit : ctx.matrix->toolkits) {
      expect.driver_floors.push_back(
          {toolkit.version.to_string(), doctor_detail::driver_text(toolkit.min_driver)});
    }
  }
  // DDP runs one process per GPU, and all of them share /dev/shm.
  const std::size_t gpus = doctor_detail::gpu_count(report);
  if (gpus > 1) expect.processes_per_node = static_cast<int>(gpus);
  return expect;
}

}  // namespace

std::vector<probes::Finding> judge_report(const nlohmann::json& report, const DoctorContext& ctx) {
  std::vector<probes::Finding> findings = probes::evaluate(report, expectations_for(report, ctx));
  if (!report.is_object()) return findings;
  doctor_detail::word_python_checks(report, ctx.matrix, findings);
  std::vector<probes::Finding> extra;
  doctor_detail::lock_checks(report, ctx, extra);
  doctor_detail::known_bad_rules(report, ctx, extra);
  // The locked CUDA against the driver reads best right under the driver line.
  auto driver = std::find_if(findings.begin(), findings.end(),
                             [](const probes::Finding& f) { return f.check == "driver"; });
  auto position = driver == findings.end() ? findings.end() : driver + 1;
  for (auto it = extra.begin(); it != extra.end();) {
    if (it->check == "driver-cuda") {
      position = findings.insert(position, *it) + 1;
      it = extra.erase(it);
    } else {
      ++it;
    }
  }
  findings.insert(findings.end(), extra.begin(), extra.end());
  doctor_detail::word_failures(report, ctx.matrix, findings);
  return findings;
}

namespace {

struct CheckProbes {
  const char* name;
  const char* probes;  // `bevenv-probe --only` list
};

// Every check id bevenv doctor can report, and field-failure ids as aliases.
constexpr CheckProbes kChecks[] = {
    {"driver", "driver,nvml"},
    {"driver-cuda", "driver,nvml"},
    {"torch-cuda-driver", "driver,nvml,python"},
    {"gpus", "driver,nvml"},
    {"mig", "driver,nvml"},
    {"gpu-memory", "driver,nvml"},
    {"p2p", "driver,nvml"},
    {"kernel", "driver,kernel"},
    {"nccl", "driver,nccl"},
    {"gpu-arch", "driver,nvml,python"},
    {"ops-arch", "driver,nvml"},
    {"lock-gpus", "driver,nvml"},
    {"shm", "host"},
    {"memlock", "host"},
    {"python", "python"},
    {"torch", "python"},
    {"lock-python", "python"},
    {"drift", "python"},
    {"known-bad", "driver,nvml,python"},
    {"mmcv-ops", "python"},
    {"mmcv-duplicate", "python"},
    {"F1", "python"},
    {"F2", "python"},
    {"F3", "python"},
    {"F4", "python"},
    {"F5", "python"},
    {"F8", "driver,nvml"},
    {"F10", "driver,nvml,python"},
    {"F11", "driver,nvml,nccl"},
    {"F12", "host"},
};

}  // namespace

std::vector<std::string> doctor_check_names() {
  std::vector<std::string> names;
  for (const auto& check : kChecks) names.emplace_back(check.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> probes_for_check(const std::string& name) {
  for (const auto& check : kChecks) {
    if (name != check.name) continue;
    std::vector<std::string> out;
    std::string current;
    for (const char c : std::string(check.probes) + ",") {
      if (c == ',') {
        out.push_back(current);
        current.clear();
      } else {
        current += c;
      }
    }
    return out;
  }
  std::string known;
  for (const auto& known_name : doctor_check_names()) {
    known += (known.empty() ? "`" : ", `") + known_name + "`";
  }
  throw core::Error(core::ExitCode::bad_input, "unknown check `" + name + "`",
                    "pick one of " + known);
}

bool finding_matches_check(const probes::Finding& finding, const std::string& name) {
  return finding.check == name || finding.field_failure == name;
}

}  // namespace bevenv::app
