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
  bool color = false;  // stdout's colour: util::terminal::styled(STDOUT_FILENO), not --json
};

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
