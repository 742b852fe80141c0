#include "lock_target_gap.hpp"

#include "bevenv/core/name.hpp"
#include "target_kernels.hpp"

namespace bevenv::app {
namespace {

struct TorchRange {
  std::string text;  // `torch ==1.9.1`
  std::vector<const matrix::PackageVersion*> builds;
};

std::optional<TorchRange> torch_range(const LockInputs& inputs) {
  const matrix::Package* torch = inputs.matrix.find_package("torch");
  if (inputs.profile == nullptr || torch == nullptr) return std::nullopt;
  TorchRange range;
  for (const auto& requirement : inputs.profile->requirements) {
    if (core::normalize_name(requirement.name) != "torch") continue;
    range.text = "torch " + requirement.specifier.to_string();
    for (const auto& build : torch->versions) {
      if (requirement.specifier.contains(build.version, true)) range.builds.push_back(&build);
    }
  }
  if (range.text.empty() || range.builds.empty()) return std::nullopt;
  return range;
}

bool runs_on(const matrix::PackageVersion& build, const GpuArch& gpu, const matrix::Matrix& m) {
  return kernel_support(build, gpu, m) != KernelSupport::none;
}

bool driver_runs(const matrix::PackageVersion& build, const TargetFacts& target) {
  return !build.cuda || !target.cuda_driver || *build.cuda <= *target.cuda_driver;
}

// The newest (or oldest) CUDA the builds are built against.
std::optional<core::Version> cuda_bound(const std::vector<const matrix::PackageVersion*>& builds,
                                        bool newest) {
  std::optional<core::Version> out;
  for (const auto* build : builds) {
    if (build->cuda && (!out || (newest ? *build->cuda > *out : *build->cuda < *out)))
      out = build->cuda;
  }
  return out;
}

// "; CUDA 11.3 cannot build them": the newest toolkit the range uses cannot compile for `gpu`,
// so rebuilding the ops does not help either.
std::string toolkit_clause(const LockInputs& inputs, const TorchRange& range, const GpuArch& gpu) {
  const auto cuda = cuda_bound(range.builds, true);
  if (!cuda) return {};
  const matrix::Toolkit* toolkit = inputs.matrix.find_toolkit(*cuda);
  if (toolkit == nullptr || toolkit_arch_for(*toolkit, gpu)) return {};
  return "; CUDA " + cuda->to_string() + " cannot build them";
}

}  // namespace

std::optional<std::string> target_gap(const LockInputs& inputs) {
  const auto range = torch_range(inputs);
  if (!range) return std::nullopt;
  const std::string owner = "`" + inputs.profile->name + "`'s " + range->text;
  std::vector<const matrix::PackageVersion*> usable = range->builds;
  for (const auto& gpu : inputs.target.gpus) {
    std::vector<const matrix::PackageVersion*> on_gpu;
    for (const auto* build : usable) {
      if (runs_on(*build, gpu, inputs.matrix)) on_gpu.push_back(build);
    }
    if (on_gpu.empty()) {
      return owner + " has no kernels for " + gpu.name() + toolkit_clause(inputs, *range, gpu);
    }
    usable = std::move(on_gpu);
  }
  std::vector<const matrix::PackageVersion*> with_driver;
  for (const auto* build : usable) {
    if (driver_runs(*build, inputs.target)) with_driver.push_back(build);
  }
  if (!with_driver.empty()) return std::nullopt;
  const auto needed = cuda_bound(usable, false);
  return owner + (inputs.target.gpus.empty() ? "" : " for these GPUs") +
         " needs a driver for CUDA >= " + (needed ? needed->to_string() : std::string("?")) +
         "; the target's supports " + inputs.target.cuda_driver->to_string();
}

}  // namespace bevenv::app
