// libFuzzer target: any bytes given to Marker::parse give a marker or an error, never a crash;
// a parsed marker evaluates without crashing and reads back as itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bevenv/core/error.hpp"
#include "bevenv/core/marker.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);  // NOLINT
  auto marker = bevenv::core::Marker::parse(text);
  if (!marker) {
    bevenv::fuzz::require_column_in_text(marker.error().column, size);
    return 0;
  }
  (void)marker->evaluate(bevenv::core::MarkerEnvironment::linux_cpython("3.8.18"));
  const std::string printed = marker->to_string();
  if (!bevenv::fuzz::marker_values_read_back(printed)) return 0;
  auto again = bevenv::core::Marker::parse(printed);
  bevenv::fuzz::require(again.has_value(), "printed marker parses");
  bevenv::fuzz::require(again->to_string() == printed, "printed marker reads back as itself");
  return 0;
}
