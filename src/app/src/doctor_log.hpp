#pragma once
// Internal to `bevenv doctor --log`: the built-in symptom catalogue.
#include <string>
#include <vector>

namespace bevenv::app::doctor_detail {

struct LogPattern {
  const char* id;      // `F1`, or a name for a known-bad combination without a catalogue id
  const char* needle;  // a literal every matching line contains (cheap to look for)
  const char* regex;   // when non-empty, the line must also match it (ECMAScript)
  const char* cause;
  const char* fix;
};

const std::vector<LogPattern>& builtin_log_patterns();

}  // namespace bevenv::app::doctor_detail
