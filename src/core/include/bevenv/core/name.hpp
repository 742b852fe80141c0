#pragma once
#include <string>
#include <string_view>

namespace bevenv::core {

// PEP 503: lower-case, runs of `-`, `_`, `.` become one `-` (`Mmcv_Full` -> `mmcv-full`). A name
// already normalized is copied as it is.
std::string normalize_name(std::string_view name);
// Whether normalize_name() would return `name` unchanged (checked without allocating).
bool is_normalized_name(std::string_view name);
// PEP 508 project names: ASCII letters and digits, with `-`, `_`, `.` inside.
bool is_valid_name(std::string_view name);

}  // namespace bevenv::core
