#pragma once
// Internal to `bevenv doctor --log`: how a log line is prepared before the catalogue's patterns
// (matrix/data/failures.toml) and the rules' `symptom` texts are looked for in it.
#include <optional>
#include <string>
#include <string_view>

#include "bevenv/core/version.hpp"

namespace bevenv::app::doctor_detail {

// The line without ANSI escape sequences (colour, cursor moves), carriage returns and NUL bytes:
// a coloured traceback must match, and print, as its plain text does.
std::string plain_log_line(const std::string& line);

// The Python that wrote the log, from the first `/python3.N/` directory in it (site-packages,
// dist-packages or the standard library of a traceback): the catalogue's fixes are fitted to it.
// Nullopt when no path names one.
std::optional<core::Version> python_of_log(std::string_view text);

}  // namespace bevenv::app::doctor_detail
