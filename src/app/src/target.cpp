#include "bevenv/app/target.hpp"

#include <algorithm>
#include <map>

#include "bevenv/core/error.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

// The last patch release of each CPython minor, so that `python_full_version` markers of a
// `--python 3.8` target evaluate as they would on a current 3.8 install.
const std::map<std::string, std::string, std::less<>>& final_patch_releases() {
  static const std::map<std::string, std::string, std::less<>> table = {
      {"3.6", "3.6.15"},   {"3.7", "3.7.17"},   {"3.8", "3.8.20"},  {"3.9", "3.9.20"},
      {"3.10", "3.10.15"}, {"3.11", "3.11.10"}, {"3.12", "3.12.7"}, {"3.13", "3.13.0"}};
  return table;
}

core::Version parse_or_throw(std::string_view text, const std::string& field,
                             const std::string& example) {
  auto parsed = core::Version::parse(text);
  if (!parsed) {
    throw Error(ExitCode::bad_input,
                "invalid " + field + " `" + std::string(text) + "`: " + parsed.error().to_string(),
                "give a version such as `" + example + "`");
  }
  return std::move(parsed).value();
}

}  // namespace

std::optional<GpuArch> parse_target_gpu(std::string_view text) {
  auto arch = core::parse_gpu_arch(text);
  if (!arch || arch->suffix != 0) return std::nullopt;
  arch->ptx = false;  // `compute_86` names the GPU of capability 8.6
  return arch;
}

core::MarkerEnvironment TargetFacts::marker_environment() const {
  const std::string machine = platform.substr(platform.find('_') + 1);
  return core::MarkerEnvironment::linux_cpython(python.to_string(), machine);
}

std::string TargetFacts::describe() const {
  std::string out = "python " + python_minor + ", " + platform;
  if (cuda_driver) out += ", CUDA driver " + cuda_driver->to_string();
  if (gpus.empty()) {
    out += ", no GPU";
  } else {
    for (const auto& gpu : gpus) out += ", " + gpu.name();
  }
  return out;
}

TargetFacts resolve_target(const TargetOverrides& overrides,
                           const std::optional<std::string>& profile_python) {
  TargetFacts facts;
  const std::string python_text = overrides.python.value_or(profile_python.value_or("3.8"));
  core::Version python = parse_or_throw(python_text, "python version", "3.8");
  if (python.release().size() < 2 || python.is_prerelease() || python.has_local()) {
    throw Error(ExitCode::bad_input, "invalid python version `" + python_text + "`",
                "give major.minor, such as `3.8`, or a full release such as `3.8.18`");
  }
  facts.python_minor =
      std::to_string(python.release()[0]) + "." + std::to_string(python.release()[1]);
  if (python.release().size() == 2) {
    const auto& table = final_patch_releases();
    const auto known = table.find(facts.python_minor);
    python = parse_or_throw(known != table.end() ? known->second : facts.python_minor + ".0",
                            "python version", "3.8");
  }
  facts.python = python;
  facts.python_from = overrides.python ? overrides.python_from : "the profile";
  facts.driver_from = overrides.driver_from;
  facts.gpus_from = overrides.gpus_from;

  if (overrides.cuda_driver) {
    facts.cuda_driver = parse_or_throw(*overrides.cuda_driver, "CUDA driver version", "12.2");
  }
  for (const auto& text : overrides.gpus) {
    const auto arch = parse_target_gpu(text);
    if (!arch) {
      throw Error(ExitCode::bad_input, "invalid GPU architecture `" + text + "`",
                  "give a compute capability such as `sm_86` or `8.6`");
    }
    facts.gpus.push_back(*arch);
  }
  std::sort(facts.gpus.begin(), facts.gpus.end());
  facts.gpus.erase(std::unique(facts.gpus.begin(), facts.gpus.end()), facts.gpus.end());
  if (!facts.gpus.empty() && !facts.cuda_driver) {
    throw Error(ExitCode::bad_input, "a GPU target needs the driver's CUDA version",
                "add `--cuda-driver X.Y` (what `nvidia-smi` prints as \"CUDA Version\")");
  }

  facts.platform = overrides.platform.value_or(std::string(kDefaultPlatform));
  if (facts.platform != "linux_x86_64" && facts.platform != "linux_aarch64") {
    throw Error(ExitCode::bad_input, "unsupported platform `" + facts.platform + "`",
                "bevenv locks for `linux_x86_64` or `linux_aarch64`");
  }
  facts.glibc = parse_or_throw(overrides.glibc.value_or(std::string(kDefaultGlibc)),
                               "glibc version", std::string(kDefaultGlibc));
  return facts;
}

}  // namespace bevenv::app
