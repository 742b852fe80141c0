#pragma once
// Whether a build runs on a GPU, and which architectures a toolkit can compile for one: the
// facts behind `__kernels-sm_XY`, the ops builds' TORCH_CUDA_ARCH_LIST and the explanations.
#include <optional>

#include "bevenv/app/target.hpp"
#include "bevenv/matrix/model.hpp"

namespace bevenv::app {

enum class KernelSupport { sass, ptx, none, unknown };

// SASS for sm_XY runs on the same major with minor >= Y; PTX compute_XY JIT-compiles for any
// GPU of capability >= XY (NVIDIA's CUDA compatibility guide). A build whose architectures are
// not recorded has none for `gpu` when nvcc of its CUDA cannot target the GPU's major at all
// (CUDA 10.2 has no sm_8x, 11.3 no sm_90); otherwise what it has is unknown.
KernelSupport kernel_support(const matrix::PackageVersion& build, const GpuArch& gpu,
                             const matrix::Matrix& matrix);

// The architecture a toolkit compiles for `gpu`: the GPU's own when nvcc targets it, else the
// newest one of the same major below it (its SASS runs there); nullopt when neither exists.
std::optional<GpuArch> toolkit_arch_for(const matrix::Toolkit& toolkit, const GpuArch& gpu);

}  // namespace bevenv::app
