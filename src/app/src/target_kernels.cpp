#include "target_kernels.hpp"

namespace bevenv::app {

KernelSupport kernel_support(const matrix::PackageVersion& build, const GpuArch& gpu,
                             const matrix::Matrix& matrix) {
  if (build.sass.empty() && build.ptx.empty()) {
    if (!build.cuda) return KernelSupport::unknown;
    const matrix::Toolkit* toolkit = matrix.find_toolkit(*build.cuda);
    if (toolkit == nullptr || toolkit_arch_for(*toolkit, gpu)) return KernelSupport::unknown;
    return KernelSupport::none;
  }
  for (const auto& sass : build.sass) {
    const auto arch = parse_gpu_arch(sass);
    if (arch && arch->capability / 10 == gpu.capability / 10 &&
        arch->capability % 10 <= gpu.capability % 10) {
      return KernelSupport::sass;
    }
  }
  for (const auto& ptx : build.ptx) {
    const auto arch = parse_gpu_arch(ptx);
    if (arch && arch->capability <= gpu.capability) return KernelSupport::ptx;
  }
  return KernelSupport::none;
}

std::optional<GpuArch> toolkit_arch_for(const matrix::Toolkit& toolkit, const GpuArch& gpu) {
  std::optional<GpuArch> best;
  for (const auto& text : toolkit.sm) {
    const auto arch = parse_gpu_arch(text);
    if (!arch || arch->capability / 10 != gpu.capability / 10) continue;
    if (arch->capability > gpu.capability) continue;
    if (!best || *arch > *best) best = arch;
  }
  return best;
}

}  // namespace bevenv::app
