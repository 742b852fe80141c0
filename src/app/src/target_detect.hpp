#pragma once
// The target of a lock when no flag, variable or bevenv.toml names it: this machine's driver
// and GPUs, read through bevenv-probe's NVML probe (no CUDA context, so well under a second).
#include <optional>
#include <string>
#include <vector>

namespace bevenv::app {

struct DetectedTarget {
  std::optional<std::string> cuda_driver;  // the driver's maximum CUDA version, `13.0`
  std::vector<std::string> gpus;           // `sm_90`, one per device
  std::string driver_version;              // `580.95.05`
  double duration_ms = 0;
  std::string problem;  // why nothing was read, when a driver is loaded but NVML failed
};

// nullopt when this machine has no NVIDIA driver loaded (no /proc/driver/nvidia/version and no
// /dev/nvidiactl); otherwise what the probe read, or `problem`.
std::optional<DetectedTarget> detect_target();

}  // namespace bevenv::app
