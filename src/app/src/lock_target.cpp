#include "lock_target.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "bevenv/core/error.hpp"
#include "bevenv/util/env.hpp"
#include "lock_target_observed.hpp"
#include "target_detect.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

std::optional<std::string> environment(const char* name) { return util::env(name); }

// `sm_86,sm_90` or `sm_86 sm_90`.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::stringstream in(text);
  while (in >> item) {
    std::stringstream parts(item);
    for (std::string part; std::getline(parts, part, ',');) {
      if (!part.empty()) out.push_back(part);
    }
  }
  return out;
}

}  // namespace

void overlay_target(TargetOverrides& into, const TargetOverrides& from,
                    const std::string& label_python, const std::string& label_driver,
                    const std::string& label_gpus) {
  const auto label = [](const std::string& own, const std::string& layer) {
    return own.empty() ? layer : own;
  };
  if (from.python) {
    into.python = from.python;
    into.python_from = label(from.python_from, label_python);
  }
  if (from.cuda_driver) {
    into.cuda_driver = from.cuda_driver;
    into.driver_from = label(from.driver_from, label_driver);
  }
  if (!from.gpus.empty()) {
    into.gpus = from.gpus;
    into.gpus_from = label(from.gpus_from, label_gpus);
  }
  if (from.platform) into.platform = from.platform;
  if (from.glibc) into.glibc = from.glibc;
}

namespace {

TargetOverrides from_environment() {
  TargetOverrides out;
  out.cuda_driver = environment("BEVENV_CUDA_DRIVER");
  if (auto gpus = environment("BEVENV_GPUS")) out.gpus = split_list(*gpus);
  return out;
}

// `--gpu none`: a CPU-only target, and nothing to detect.
bool names_no_gpu(TargetOverrides& target) {
  if (target.gpus.size() != 1 || target.gpus.front() != "none") return false;
  target.gpus.clear();
  return true;
}

// `12` is CUDA 12.0, as nvidia-smi's "CUDA Version: 12.0" and pip's `cu120` read; `12.2.1` (a
// toolkit's patch release) is the CUDA 12.2 a driver reports. Anything else is left to the
// version parser and its error.
std::optional<std::string> cuda_major_minor(const std::string& text) {
  const auto digits = [](std::string_view part) {
    return !part.empty() && part.size() <= 3 &&
           std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const auto first = text.find('.');
  if (first == std::string::npos) return digits(text) ? std::optional(text + ".0") : std::nullopt;
  const auto second = text.find('.', first + 1);
  if (second == std::string::npos) return std::nullopt;  // already X.Y
  const std::string_view view(text);
  if (!digits(view.substr(0, first)) || !digits(view.substr(first + 1, second - first - 1)) ||
      !digits(view.substr(second + 1)))
    return std::nullopt;
  return text.substr(0, second);
}

void correct_driver_version(TargetChoice& choice, const matrix::Matrix& matrix) {
  auto& driver = choice.overrides.cuda_driver;
  if (!driver) return;
  const auto cuda = cuda_of_driver_version(*driver, matrix);
  if (!cuda) {
    if (const auto short_form = cuda_major_minor(*driver)) driver = *short_form;
    return;
  }
  choice.notes.push_back("`" + *driver + "` (" + choice.overrides.driver_from +
                         ") is a driver version; it supports CUDA " + *cuda +
                         ", so the lock is for CUDA driver " + *cuda + " (give `--cuda-driver " +
                         *cuda + "` next time)");
  driver = *cuda;
}

void apply_detection(TargetChoice& choice) {
  const std::optional<DetectedTarget> found = detect_target();
  if (!found) return;
  if (!found->problem.empty() || !found->cuda_driver) {
    choice.warnings.push_back("an NVIDIA driver is loaded but the target was not detected (" +
                              found->problem + "); name it with `--cuda-driver X.Y --gpu sm_XY`");
    return;
  }
  TargetOverrides& target = choice.overrides;
  target.cuda_driver = found->cuda_driver;
  target.driver_from = "detected";
  target.gpus = found->gpus;
  target.gpus_from = "detected";
  std::string gpus;
  for (const auto& gpu : found->gpus) gpus += (gpus.empty() ? "" : ", ") + gpu;
  char took[32];
  std::snprintf(took, sizeof took, "%.0f ms", found->duration_ms);
  choice.notes.push_back("target detected: driver " + found->driver_version + " (CUDA " +
                         *found->cuda_driver + "), " + std::to_string(found->gpus.size()) +
                         " GPU(s) " + gpus + " (bevenv-probe NVML, " + took +
                         "); `--cuda-driver`/`--gpu` or `BEVENV_CUDA_DRIVER`/`BEVENV_GPUS` "
                         "override it");
}

// This host's `[[observed_host]]` record, when the driver loaded now is the one it names; true
// when it set the target. A record of another driver is stale: detection decides, and says so.
bool apply_observed_host(TargetChoice& choice, const matrix::Matrix& matrix,
                         const LocalHost& here) {
  const matrix::ObservedHost* record = observed_host_for(matrix, here);
  if (record == nullptr) return false;
  if (here.loaded_driver != record->driver) {
    const std::string what =
        "the record of this host (" + record->date + ") names driver " + record->driver + ", but ";
    choice.notes.push_back(here.loaded_driver
                               ? what + "driver " + *here.loaded_driver +
                                     " is loaded; `bevenv doctor --record` records it again"
                               : what + "no NVIDIA driver is loaded now, so it is not used");
    return false;
  }
  TargetOverrides& target = choice.overrides;
  const std::string origin = observed_origin(*record);
  target.cuda_driver = record->cuda_driver.to_string();
  target.driver_from = origin;
  target.gpus = record->gpus;
  target.gpus_from = origin;
  std::string gpus;
  for (const auto& gpu : record->gpus) gpus += (gpus.empty() ? "" : ", ") + gpu;
  choice.notes.push_back("target from this host's record (`bevenv doctor --record`, " +
                         record->date + "): driver " + record->driver + " (CUDA " +
                         *target.cuda_driver + "), " + std::to_string(record->gpus.size()) +
                         " GPU(s) " + gpus +
                         "; `--cuda-driver`/`--gpu` or `BEVENV_CUDA_DRIVER`/`BEVENV_GPUS` "
                         "override it");
  return true;
}

}  // namespace

std::optional<std::string> cuda_of_driver_version(const std::string& text,
                                                  const matrix::Matrix& matrix) {
  const auto parsed = core::Version::parse(text);
  if (!parsed || parsed.value().release().empty() || parsed.value().release()[0] < 100) {
    return std::nullopt;  // a CUDA version (or not a version: resolve_target says so)
  }
  const matrix::Toolkit* best = nullptr;
  for (const auto& toolkit : matrix.toolkits) {
    if (toolkit.min_driver > parsed.value()) continue;
    if (best == nullptr || toolkit.version > best->version) best = &toolkit;
  }
  if (best == nullptr) {
    throw Error(ExitCode::bad_input,
                "driver `" + text + "` is older than every CUDA toolkit in the matrix",
                "give the CUDA version `nvidia-smi` prints as \"CUDA Version\", such as `11.4`");
  }
  return best->version.to_string();
}

TargetChoice choose_target(const TargetOverrides& project, const TargetOverrides& flags,
                           const matrix::Matrix& matrix, const matrix::Profile* profile,
                           const LocalHost& here) {
  TargetChoice choice;
  overlay_target(choice.overrides, project, "`bevenv.toml`", "`bevenv.toml`", "`bevenv.toml`");
  overlay_target(choice.overrides, from_environment(), "", "`BEVENV_CUDA_DRIVER`", "`BEVENV_GPUS`");
  overlay_target(choice.overrides, flags, "`--python`", "`--cuda-driver`", "`--gpu`");
  const bool no_gpu = names_no_gpu(choice.overrides);
  correct_driver_version(choice, matrix);
  const bool named = choice.overrides.cuda_driver || !choice.overrides.gpus.empty();
  if (!named && !no_gpu && !apply_observed_host(choice, matrix, here)) apply_detection(choice);
  const bool gpu_profile = profile != nullptr && !profile->cuda.empty();
  if (gpu_profile && !no_gpu && choice.overrides.gpus.empty() && !choice.overrides.cuda_driver) {
    choice.warnings.push_back("no GPU named or detected: `" + profile->name +
                              "` is locked for no particular GPU or driver; name the target with "
                              "`--gpu sm_XY --cuda-driver X.Y` (or `--gpu none` for CPU only)");
  }
  return choice;
}

}  // namespace bevenv::app
