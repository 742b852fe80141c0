#pragma once
// What the target decided in a lock: which CUDA build of a package (and why), the base image
// and the architectures the compiled ops are built for.
#include <optional>
#include <string>

#include "bevenv/lockfiles/model.hpp"
#include "bevenv/solver/solution.hpp"
#include "lock_inputs.hpp"
#include "lock_translate.hpp"

namespace bevenv::app {

// `cu102 because the driver supports CUDA <= 10.2 (cu111, cu113 need newer)`, for a chosen
// record built against CUDA; nullopt for the rest.
std::optional<lockfiles::Reason> cuda_build_reason(const matrix::PackageVersion& chosen,
                                                   const LockInputs& inputs);

// TORCH_CUDA_ARCH_LIST for ops compiled with the toolkit of `cuda`: each target GPU's own
// architecture when that toolkit targets it, else the newest of its major below it, with PTX of
// the newest so a later GPU still runs them. Without target GPUs: the profile's list.
std::string ops_arch_list(const LockInputs& inputs, const std::optional<core::Version>& cuda);

// The base image: the profile's official one when the lock kept the profile's CUDA, else the
// first image of the chosen CUDA's toolkit.
std::string base_image_for(const LockInputs& inputs, const std::optional<core::Version>& cuda);

}  // namespace bevenv::app
