#pragma once
// Internal to `bevenv doctor --log`: how a log line is prepared before the catalogue's patterns
// (matrix/data/failures.toml) and the rules' `symptom` texts are looked for in it.
#include <string>

namespace bevenv::app::doctor_detail {

// The line without ANSI escape sequences (colour, cursor moves) and carriage returns: a
// coloured traceback must match as its plain text does.
std::string plain_log_line(const std::string& line);

}  // namespace bevenv::app::doctor_detail
