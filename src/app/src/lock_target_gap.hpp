#pragma once
// Why a profile cannot serve a target, in one line, when the reason is the target itself: no
// torch build the profile allows has kernels for a target GPU, or each needs a newer driver.
#include <optional>
#include <string>

#include "lock_inputs.hpp"

namespace bevenv::app {

// "bevfusion's torch >=1.9,<=1.10.2 has no kernels for sm_90; CUDA 11.3 cannot build them";
// nullopt when the target leaves some torch build the profile allows.
std::optional<std::string> target_gap(const LockInputs& inputs);

}  // namespace bevenv::app
