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
  std::vector<std::string> compiled = build.sass;
  compiled.insert(compiled.end(), build.ptx.begin(), build.ptx.end());
  switch (core::arch_support(gpu, compiled)) {
    case core::ArchSupport::sass:
      return KernelSupport::sass;
    case core::ArchSupport::ptx_jit:
      return KernelSupport::ptx;
    case core::ArchSupport::none:
      break;
  }
  return KernelSupport::none;
}

std::optional<GpuArch> toolkit_arch_for(const matrix::Toolkit& toolkit, const GpuArch& gpu) {
  std::optional<GpuArch> best;
  for (const auto& text : toolkit.sm) {
    const auto arch = core::parse_gpu_arch(text);
    if (!arch || arch->capability / 10 != gpu.capability / 10) continue;
    if (arch->capability > gpu.capability) continue;
    if (!best || *arch > *best) best = arch;
  }
  return best;
}

}  // namespace bevenv::app
