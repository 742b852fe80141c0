#include "printer.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "bevenv/util/terminal.hpp"

namespace bevenv::cli {
namespace {

using namespace util::terminal;

struct MarkStyle {
  const char* symbol;
  const char* colour;
};

MarkStyle mark_style(app::Mark mark) {
  switch (mark) {
    case app::Mark::ok:
      return {"✓", kGreen};
    case app::Mark::warning:
      return {"!", kYellow};
    case app::Mark::problem:
      return {"✗", kRed};
    case app::Mark::info:
      return {"·", kCyan};
    case app::Mark::none:
      break;
  }
  return {"", ""};
}

bool wanted(const app::Line& line, app::Verbosity verbosity) {
  return !line.verbose_only || verbosity == app::Verbosity::verbose;
}

}  // namespace

std::string Printer::style_text(const std::string& text, bool color, bool dim) const {
  if (!color) return text;
  // Names in backticks are the things a user types; make them stand out on a terminal.
  std::string out = dim ? kDim : "";
  bool inside = false;
  for (char c : text) {
    if (c == '`') {
      inside = !inside;
      out += inside ? std::string(kBold) + "`" : std::string("`") + kReset + (dim ? kDim : "");
      continue;
    }
    out += c;
  }
  if (dim || inside) out += kReset;
  return out;
}

void Printer::print_line(std::FILE* stream, const app::Line& line, bool color) const {
  std::string out(static_cast<std::size_t>(line.indent) * 2, ' ');
  const MarkStyle style = mark_style(line.mark);
  if (line.mark != app::Mark::none) out += paint(style.symbol, style.colour, color) + ' ';
  out += style_text(line.text, color, line.is_hint);
  out += '\n';
  std::fputs(out.c_str(), stream);  // buffered: a long listing is not a write per line
}

void Printer::print(const app::CommandOutput& output) const {
  // Each stream is judged on its own: `bevenv lock | less` still colours what goes to stderr.
  const bool err_color = !options_.json && styled(STDERR_FILENO);
  // `-q` silences a command that succeeded; one that found a problem still says what and why
  // (an unsatisfiable lock, a stale one, a doctor finding), as it would without `-q`.
  const bool quiet =
      options_.verbosity == app::Verbosity::quiet && output.exit_code == core::ExitCode::ok;
  if (!quiet || options_.json) {
    for (const auto& line : output.diagnostics) {
      if (wanted(line, options_.verbosity)) print_line(stderr, line, err_color);
    }
  }
  if (options_.json) {
    std::cout << output.json.dump(2) << '\n';
    return;
  }
  if (quiet) return;
  for (const auto& line : output.lines) {
    if (wanted(line, options_.verbosity)) print_line(stdout, line, options_.color);
  }
  std::fflush(stdout);
}

void Printer::print_error(const std::string& message, const std::string& hint,
                          core::ExitCode code) const {
  const bool color = styled(STDERR_FILENO);
  if (options_.json) {
    nlohmann::json j = {{"error", {{"message", message}, {"exit_code", static_cast<int>(code)}}}};
    if (!hint.empty()) j["error"]["hint"] = hint;
    std::cout << j.dump(2) << '\n';
  }
  const std::string bold_red = std::string(kRed) + kBold;
  std::string out = paint("error:", bold_red.c_str(), color) + " ";
  out += style_text(message, color, false) + "\n";
  if (!hint.empty())
    out += paint("hint:", kDim, color) + " " + style_text(hint, color, false) + "\n";
  write(stderr, out);
}

void Printer::print_error(const core::Error& error) const {
  std::string message = error.what();
  for (const auto& cause : error.causes()) message += "\n  " + cause;
  print_error(message, error.hint(), error.code());
}

}  // namespace bevenv::cli
