// GPU architecture coverage (core/gpu_arch.hpp's, for the GPUs a report names), and the driver
// floor lookup over the table the caller passes.
#include "bevenv/core/gpu_arch.hpp"
#include "rules.hpp"

namespace bevenv::probes {

std::optional<std::string> Expectations::minimum_driver_for_cuda(const std::string& cuda) const {
  const auto wanted = rules::major_minor(cuda);
  for (const auto& floor : driver_floors) {
    if (rules::major_minor(floor.cuda) == wanted) return floor.driver;
  }
  return std::nullopt;
}

ArchSupport arch_support(const std::string& sm, const std::vector<std::string>& compiled_archs) {
  const auto gpu = core::parse_gpu_arch(sm);
  if (!gpu) return ArchSupport::none;
  return core::arch_support(*gpu, compiled_archs);
}

}  // namespace bevenv::probes
