// Stand-ins for the probes that need CUDA headers to build; the report then says which
// probes this binary lacks instead of silently omitting them.
#include "probe_tool.hpp"

namespace bevenv::probe_tool {

#if !defined(BEVENV_PROBE_HAVE_KERNEL)
bool kernel_probe_built() { return false; }
json probe_kernel(const Options&, const std::vector<std::string>&) {
  return {{"status", "unsupported"},
          {"error", "this bevenv-probe was built without CUDA headers (no kernel probe)"}};
}
#endif

#if !defined(BEVENV_PROBE_HAVE_NCCL)
bool nccl_probe_built() { return false; }
json probe_nccl(const std::vector<std::string>&) {
  return {{"status", "unsupported"},
          {"error", "this bevenv-probe was built without nccl.h (no NCCL probe)"}};
}
#endif

}  // namespace bevenv::probe_tool
