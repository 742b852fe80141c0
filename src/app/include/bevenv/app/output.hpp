#pragma once
// What a command hands back to the CLI: human lines and the same facts as JSON.
// Only src/cli prints; app code builds one of these.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bevenv/core/error.hpp"

namespace bevenv::app {

enum class Mark { none, ok, warning, problem, info };
enum class Verbosity { quiet, normal, verbose };

// One line of human output. Text may hold `backticked` names; the printer styles them on a TTY.
struct Line {
  Mark mark = Mark::none;
  int indent = 0;  // levels of two spaces
  std::string text;
  bool verbose_only = false;  // shown only with -v
  bool is_hint = false;       // `hint:`/`fix:` lines: dimmed on a TTY
};

struct CommandOutput {
  core::ExitCode exit_code = core::ExitCode::ok;
  std::vector<Line> lines;        // to stdout
  std::vector<Line> diagnostics;  // to stderr (warnings, notes); also shown with --json
  nlohmann::json json = nlohmann::json::object();

  Line& add(std::string text, Mark mark = Mark::none, int indent = 0) {
    lines.push_back(Line{mark, indent, std::move(text), false, false});
    return lines.back();
  }
  Line& hint(std::string text, int indent = 1) {
    lines.push_back(Line{Mark::none, indent, std::move(text), false, true});
    return lines.back();
  }
};

// `a`, `b`, `c`: names as a message lists them (backticked, so the printer styles each).
inline std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "`" : ", `") + n + "`";
  return out;
}

}  // namespace bevenv::app
