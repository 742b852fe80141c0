#pragma once
// The machine a lock is made for: from flags, from bevenv.toml, or from defaults of the profile.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/gpu_arch.hpp"
#include "bevenv/core/marker.hpp"
#include "bevenv/core/version.hpp"

namespace bevenv::app {

// A GPU architecture as `sm_XY`, stored as its compute capability (86 for sm_86).
// A target GPU: the one architecture type (core/gpu_arch.hpp), always SASS without a suffix.
using GpuArch = core::GpuArch;

// A GPU as a user names it: `sm_86`, `86`, `8.6` or `compute_86`; nullopt otherwise (`sm_90a`
// names a build, not a GPU).
std::optional<GpuArch> parse_target_gpu(std::string_view text);

// What the user asked for; unset fields fall back to the profile, then to defaults.
// What a target is where nothing says otherwise.
inline constexpr std::string_view kDefaultPlatform = "linux_x86_64";
inline constexpr std::string_view kDefaultGlibc = "2.31";

struct TargetOverrides {
  std::optional<std::string> python;       // `3.8` or `3.8.18`
  std::optional<std::string> cuda_driver;  // the driver's maximum CUDA version, `12.2`
  std::vector<std::string> gpus;           // `sm_86`, ...
  std::optional<std::string> platform;     // `linux_x86_64`
  std::optional<std::string> glibc;        // `2.31`
  // Where each value came from (`--cuda-driver`, `BEVENV_GPUS`, `bevenv.toml`, `detected`), so
  // that explanations say "the target's driver (`--cuda-driver`)" and never "the system has"
  // about a target given by flags.
  std::string python_from, driver_from, gpus_from;
  bool detect = true;  // false after `--gpu none` / `BEVENV_GPUS=none`: a CPU-only target
};

struct TargetFacts {
  core::Version python;                      // full version, e.g. 3.8.18
  std::string python_minor;                  // `3.8`
  std::optional<core::Version> cuda_driver;  // absent: a CPU-only target
  std::vector<GpuArch> gpus;                 // sorted, unique
  std::string platform{kDefaultPlatform};
  core::Version glibc;
  std::string python_from, driver_from, gpus_from;  // as in TargetOverrides

  core::MarkerEnvironment marker_environment() const;
  std::string describe() const;  // `python 3.8, linux_x86_64, CUDA driver 12.2, sm_86`
};

// Merges overrides over the defaults (profile python, no driver, no GPU, kDefaultPlatform,
// kDefaultGlibc). `where` names the source of the values for error messages (`--python`,
// bevenv.toml). Throws core::Error(bad_input) naming the field and what was expected.
TargetFacts resolve_target(const TargetOverrides& overrides,
                           const std::optional<std::string>& profile_python);

}  // namespace bevenv::app
