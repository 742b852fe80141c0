#pragma once
// A lock with no target named takes this host's driver and GPUs from the `[[observed_host]]`
// record `bevenv doctor --record` wrote here, when the driver loaded now is the one recorded.
#include <optional>
#include <string>

#include "bevenv/matrix/model.hpp"

namespace bevenv::app {

// What the lock can see of this machine without running a probe.
struct LocalHost {
  std::string hostname;
  std::optional<std::string> loaded_driver;  // from /proc/driver/nvidia/version
  static LocalHost current();
};

// `580.95.05` from the text of /proc/driver/nvidia/version; nullopt when it names none.
std::optional<std::string> driver_of_proc_version(const std::string& text);

// The newest record of `here` (same hostname), or nullptr.
const matrix::ObservedHost* observed_host_for(const matrix::Matrix& matrix, const LocalHost& here);

// `observed on this host 2026-12-02: driver 580.159.04, sm_90 kernel as cubin`.
std::string observed_origin(const matrix::ObservedHost& record);
// Whether a target fact's origin (`TargetOverrides::driver_from`) is such a record.
bool is_observed_origin(const std::string& origin);

}  // namespace bevenv::app
