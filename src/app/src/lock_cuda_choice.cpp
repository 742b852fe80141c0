#include "lock_cuda_choice.hpp"

#include <algorithm>

#include "target_kernels.hpp"

namespace bevenv::app {
namespace {

std::string build_label(const matrix::PackageVersion& build) {
  const std::string local = build.version.local_string();
  if (!local.empty()) return "`" + local + "`";
  return "the PyPI build (CUDA " + build.cuda->to_string() + ")";
}

std::string label_list(const std::vector<const matrix::PackageVersion*>& builds) {
  std::string out;
  for (const auto* build : builds) out += (out.empty() ? "" : ", ") + build_label(*build);
  return out;
}

bool lacks_kernels(const matrix::PackageVersion& build, const LockInputs& inputs) {
  for (const auto& gpu : inputs.target.gpus) {
    if (kernel_support(build, gpu, inputs.matrix) == KernelSupport::none) return true;
  }
  return false;
}

std::string gpu_names(const TargetFacts& target) {
  std::string out;
  for (const auto& gpu : target.gpus) out += (out.empty() ? "" : ", ") + gpu.name();
  return out;
}

// ` (\`--cuda-driver\`)`, ` (observed on this host ...)`: where the target's driver came from.
std::string driver_origin(const TargetFacts& target) {
  return target.driver_from.empty() ? std::string() : " (" + target.driver_from + ")";
}

}  // namespace

std::optional<lockfiles::Reason> cuda_build_reason(const matrix::PackageVersion& chosen,
                                                   const LockInputs& inputs) {
  if (!chosen.cuda) return std::nullopt;
  const matrix::Package* package = inputs.matrix.find_package(chosen.name);
  if (package == nullptr) return std::nullopt;
  const core::Version release = chosen.version.without_local();
  std::vector<const matrix::PackageVersion*> need_driver, need_kernels, others;
  for (const auto& sibling : package->versions) {
    if (!sibling.cuda || *sibling.cuda <= *chosen.cuda) continue;
    if (sibling.version.without_local() != release) continue;
    const auto& driver = inputs.target.cuda_driver;
    if (driver && *sibling.cuda > *driver) {
      need_driver.push_back(&sibling);
    } else if (lacks_kernels(sibling, inputs)) {
      need_kernels.push_back(&sibling);
    } else {
      others.push_back(&sibling);
    }
  }
  lockfiles::Reason reason;
  reason.kind = lockfiles::ReasonKind::target;
  const std::string self = build_label(chosen);
  const std::string what = chosen.name + " " + release.to_string();
  if (!need_driver.empty()) {
    reason.text = self +
                  " because the driver supports CUDA <= " + inputs.target.cuda_driver->to_string() +
                  driver_origin(inputs.target) + " (" + label_list(need_driver) + " need newer)";
  } else if (!need_kernels.empty()) {
    reason.text = self + " because " + label_list(need_kernels) + " has no kernels for " +
                  gpu_names(inputs.target);
  } else if (!others.empty()) {
    reason.text = self + " to share one CUDA build with the other CUDA packages (" +
                  label_list(others) + " would not)";
  } else if (inputs.target.cuda_driver) {
    reason.text = self + ", the newest CUDA build of " + what + "; the driver supports CUDA " +
                  inputs.target.cuda_driver->to_string() + driver_origin(inputs.target);
  } else {
    reason.text = self + ", the newest CUDA build of " + what +
                  " (no driver given: `--cuda-driver` lets the target choose)";
  }
  return reason;
}

std::string ops_arch_list(const LockInputs& inputs, const std::optional<core::Version>& cuda) {
  if (inputs.target.gpus.empty()) {
    if (inputs.profile == nullptr) return {};
    const auto it = inputs.profile->env.find("TORCH_CUDA_ARCH_LIST");
    return it == inputs.profile->env.end() ? std::string() : it->second;
  }
  const matrix::Toolkit* toolkit = cuda ? inputs.matrix.find_toolkit(*cuda) : nullptr;
  std::vector<GpuArch> archs;
  for (const auto& gpu : inputs.target.gpus) {
    std::optional<GpuArch> arch = gpu;
    if (toolkit != nullptr) arch = toolkit_arch_for(*toolkit, gpu);
    if (arch && std::find(archs.begin(), archs.end(), *arch) == archs.end()) archs.push_back(*arch);
  }
  std::sort(archs.begin(), archs.end());
  std::string out;
  for (const auto& arch : archs) out += (out.empty() ? "" : ";") + arch.dotted();
  // PTX of the newest target lets a newer GPU still run the ops, after a JIT at start-up.
  return out.empty() ? out : out + "+PTX";
}

std::string base_image_for(const LockInputs& inputs, const std::optional<core::Version>& cuda) {
  if (inputs.profile != nullptr && !inputs.profile->base_image.empty()) {
    const auto official = core::Version::parse(inputs.profile->cuda);
    if (!cuda || (official && official.value() == *cuda)) return inputs.profile->base_image;
  }
  if (!cuda) return {};
  const matrix::Toolkit* toolkit = inputs.matrix.find_toolkit(*cuda);
  if (toolkit == nullptr || toolkit->images.empty()) return {};
  return toolkit->images.front();
}

}  // namespace bevenv::app
