#pragma once
// The one GPU architecture type and the one coverage function: which compiled architectures
// run on a GPU. Every grammar bevenv meets is read here: nvcc's `sm_86` / `compute_86`,
// arch-specific `sm_90a` and family `sm_100f`, a compute capability `8.6` or `86`, and
// TORCH_CUDA_ARCH_LIST's `8.6+PTX`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bevenv::core {

struct GpuArch {
  int capability = 0;  // 86 for sm_86 / 8.6
  bool ptx = false;    // compute_XY: PTX the driver JIT-compiles, not SASS
  char suffix = 0;     // 'a' (runs on exactly this GPU) or 'f' (this family), else 0
  int major() const { return capability / 10; }
  int minor() const { return capability % 10; }
  std::string name() const;    // `sm_86`, `compute_90`, `sm_90a`
  std::string dotted() const;  // `8.6`, as TORCH_CUDA_ARCH_LIST spells it
  auto operator<=>(const GpuArch&) const = default;
};

// One architecture: `sm_86`, `compute_86`, `sm_90a`, `sm_100f`, `8.6` or `86` (SASS unless
// `compute_`). Nullopt for anything else, capabilities outside 1.0-19.9 included.
std::optional<GpuArch> parse_gpu_arch(std::string_view text);
// An entry of a compiled-architecture list: the above, or `8.6+PTX` (SASS and PTX of 8.6).
// Empty when the text is none of these.
std::vector<GpuArch> parse_arch_entry(std::string_view text);

enum class ArchSupport { sass, ptx_jit, none };

// How a GPU is served by compiled architectures (NVIDIA's CUDA compatibility rules): SASS of
// the same major and a minor not above the GPU's runs natively (`a`/`f` SASS only on the GPU
// named, or its family); PTX of a capability not above the GPU's is JIT-compiled by the driver.
ArchSupport arch_support(const GpuArch& gpu, const std::vector<GpuArch>& compiled);
// The same over text lists as builds, lockfiles and torch report them; unreadable entries
// count for nothing.
ArchSupport arch_support(const GpuArch& gpu, const std::vector<std::string>& compiled);

}  // namespace bevenv::core
