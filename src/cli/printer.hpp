#pragma once
// The one place that writes to stdout/stderr: marks, colour on a TTY, NO_COLOR, --json, -v/-q.
#include <cstdio>
#include <string>

#include "bevenv/app/output.hpp"
#include "bevenv/core/error.hpp"

namespace bevenv::cli {

struct PrinterOptions {
  bool json = false;
  app::Verbosity verbosity = app::Verbosity::normal;
  bool color = false;  // decided once from the TTY, NO_COLOR and TERM
};

// Colour is used only when stdout is a terminal, NO_COLOR is unset or empty, and TERM is not
// `dumb` (https://no-color.org).
bool should_use_color(int fd);

class Printer {
 public:
  explicit Printer(PrinterOptions options) : options_(options) {}

  void print(const app::CommandOutput& output) const;
  void print_error(const core::Error& error) const;
  void print_error(const std::string& message, const std::string& hint, core::ExitCode code) const;
  const PrinterOptions& options() const { return options_; }

 private:
  void print_line(std::FILE* stream, const app::Line& line, bool color) const;
  std::string style_text(const std::string& text, bool color, bool dim) const;
  PrinterOptions options_;
};

}  // namespace bevenv::cli
