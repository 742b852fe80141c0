// libFuzzer target: any bytes given to Requirement::parse give a requirement or an error,
// never a crash; a parsed requirement reads back as itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bevenv/core/error.hpp"
#include "bevenv/core/requirement.hpp"
#include "fuzz_check.hpp"

namespace {

// Marker values with a backslash or a line break do not read back (fuzz_check.hpp); nor does an
// extra such as `cuda_`, whose normalized form `cuda-` is no extra name. Those requirements are
// not checked.
bool reads_back(const bevenv::core::Requirement& requirement, std::string_view printed) {
  for (const std::string& extra : requirement.extras) {
    if (extra.ends_with('-')) return false;
  }
  return bevenv::fuzz::marker_values_read_back(printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);  // NOLINT
  auto requirement = bevenv::core::Requirement::parse(text);
  if (!requirement) {
    bevenv::fuzz::require_column_in_text(requirement.error().column, size);
    return 0;
  }
  const std::string printed = requirement->to_string();
  if (!reads_back(requirement.value(), printed)) return 0;
  auto again = bevenv::core::Requirement::parse(printed);
  bevenv::fuzz::require(again.has_value(), "printed requirement parses");
  bevenv::fuzz::require(again->to_string() == printed, "printed requirement reads back as itself");
  (void)again->marker.evaluate(bevenv::core::MarkerEnvironment::linux_cpython("3.10.12"));
  return 0;
}
