// `bevenv doctor --log FILE`: reads the log (refusing what is not a text file) and prints the
// known failures scan_log (doctor_log_scan.cpp) finds, with the line, the cause and the fix.
#include "doctor_log.hpp"

#include <iostream>
#include <sstream>

#include "bevenv/app/doctor.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/text_input.hpp"
#include "bevenv/matrix/loader.hpp"

namespace bevenv::app {
namespace {

// The whole log, refused when it is no regular file (a FIFO or /dev/urandom would never end),
// larger than core::kMaxInputBytes, or binary (nothing in it could name a failure).
std::string read_log(const std::filesystem::path& path, const std::string& name) {
  const std::string hint =
      "pass a log file or traceback; for a big or live log, pass its end: "
      "`tail -c 32M FILE | bevenv doctor --log -`";
  std::string text =
      path == "-" ? core::read_stream(std::cin, name, hint) : core::read_regular_file(path, hint);
  if (const auto offset = core::binary_offset(text)) {
    throw core::Error(core::ExitCode::bad_input,
                      "`" + name + "` holds binary data (at byte " + std::to_string(*offset) +
                          "), not a text log",
                      "pass the training log or traceback as text");
  }
  return text;
}

// A broken overlay should not stop a log from being read: fall back to the embedded matrix,
// whose catalogue the build has checked. `note` says why when it falls back.
std::optional<matrix::Matrix> matrix_or_embedded(const MatrixOptions& options, std::string& note) {
  try {
    return load_matrix_or_throw(options);
  } catch (const core::Error& error) {
    note = error.what();
    if (auto embedded = matrix::load_embedded()) return std::move(embedded.value());
  }
  return std::nullopt;
}

std::string rules_text(const LogMatch& match, const matrix::Matrix* matrix) {
  std::string rules;
  for (const auto& id : match.rules) {
    rules += (rules.empty() ? "`" : ", `") + id + "`";
    const matrix::Rule* rule = matrix ? matrix->find_rule(id) : nullptr;
    if (rule != nullptr && !rule->failure.empty() && rule->failure != match.id) {
      rules += " (" + rule->failure + ")";
    }
  }
  return rules;
}

// One known failure: where, cause and fix, the rules that prevent it, and (with `-v`) the other
// lines it appears on.
void add_match(CommandOutput& out, const LogMatch& match, const matrix::Matrix* matrix) {
  out.add("line " + std::to_string(match.line) + ": " + match.text + "  → " + match.id,
          Mark::problem);
  out.hint("cause: " + match.cause, 2);
  out.hint("fix: " + match.fix, 2);
  if (!match.rules.empty()) {
    out.add("matrix rules: " + rules_text(match, matrix) + " (`bevenv matrix rules`)", Mark::none,
            2);
  }
  if (!match.more_lines.empty()) {
    std::string more;
    for (std::size_t i = 0; i < match.more_lines.size() && i < 10; ++i) {
      more += (i == 0 ? "" : ", ") + std::to_string(match.more_lines[i]);
    }
    if (match.more_lines.size() > 10) more += ", ...";
    out.add("again on line" + std::string(match.more_lines.size() == 1 ? " " : "s ") + more,
            Mark::none, 2)
        .verbose_only = true;
  }
}

}  // namespace

CommandOutput doctor_log(const DoctorLogOptions& options) {
  std::string matrix_note;
  const std::optional<matrix::Matrix> matrix = matrix_or_embedded(options.matrix, matrix_note);
  std::size_t lines = 0;
  const std::string name = options.log == "-" ? "standard input" : options.log.string();
  const std::string text = read_log(options.log, name);
  // A pasted log says nothing of the installed packages, but its paths name the interpreter.
  matrix::FixContext context;
  context.python = doctor_detail::python_of_log(text);
  std::istringstream in(text);
  const std::vector<LogMatch> found = scan_log(in, matrix ? &*matrix : nullptr, &lines, context);
  // Nothing to match is not "no known failure": most often the traceback went to stderr.
  if (lines == 0) {
    throw core::Error(core::ExitCode::bad_input,
                      (options.log == "-" ? std::string("standard input") : "`" + name + "`") +
                          " holds no log lines",
                      "a traceback goes to stderr: capture both, `python train.py 2>&1 | bevenv "
                      "doctor --log -` (or `> train.log 2>&1`)");
  }
  CommandOutput out;
  if (!matrix_note.empty()) {
    out.diagnostics.push_back(Line{
        Mark::warning, 0, matrix_note + "; matching the embedded catalogue only", false, false});
  }
  const std::string count =
      std::to_string(found.size()) + " known failure" + (found.size() == 1 ? "" : "s");
  out.add("bevenv doctor --log " + name + ": " + count + " in " + std::to_string(lines) + " lines");
  nlohmann::json matches = nlohmann::json::array();
  for (const auto& match : found) {
    add_match(out, match, matrix ? &*matrix : nullptr);
    matches.push_back({{"id", match.id},
                       {"line", match.line},
                       {"more_lines", match.more_lines},
                       {"text", match.text},
                       {"cause", match.cause},
                       {"fix", match.fix},
                       {"rules", match.rules}});
  }
  const std::string python = context.python ? context.python->to_string() : "";
  if (found.empty()) {
    out.add("no known failure found; `bevenv matrix rules` lists the symptoms bevenv knows",
            Mark::ok);
  } else {
    out.exit_code = core::ExitCode::problem_found;
    if (!python.empty()) {
      out.add("fixes fitted to Python " + python + ", the interpreter in the log's paths");
    }
  }
  out.json = {{"log", name},
              {"lines", lines},
              {"python", python.empty() ? nlohmann::json() : nlohmann::json(python)},
              {"matches", matches}};
  return out;
}

}  // namespace bevenv::app
