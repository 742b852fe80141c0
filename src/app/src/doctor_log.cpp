// `bevenv doctor --log FILE`: names the known failures in a training log or traceback, with the
// line, the cause and the fix. Built-in patterns first; the matrix rules' `symptom` texts make
// new rules work without code changes.
#include "doctor_log.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>

#include "bevenv/app/doctor.hpp"
#include "bevenv/core/error.hpp"

namespace bevenv::app {
namespace {

using doctor_detail::LogPattern;

struct CompiledPattern {
  const LogPattern* pattern;
  std::optional<std::regex> regex;
};

// A rule's symptom, split at `...` (the elisions in symptom texts); all pieces in order.
struct SymptomMatcher {
  const matrix::Rule* rule;
  std::vector<std::string> pieces;
};

// Pieces shorter than this would match unrelated lines.
constexpr std::size_t kMinimumPiece = 12;

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::vector<SymptomMatcher> symptom_matchers(const matrix::Matrix* matrix) {
  std::vector<SymptomMatcher> out;
  if (matrix == nullptr) return out;
  for (const auto& rule : matrix->rules) {
    if (rule.symptom.empty()) continue;
    SymptomMatcher matcher{&rule, {}};
    std::string rest = rule.symptom;
    bool usable = true;
    while (true) {
      const auto gap = rest.find("...");
      const std::string piece = trimmed(rest.substr(0, gap));
      if (!piece.empty()) matcher.pieces.push_back(piece);
      if (gap == std::string::npos) break;
      rest = rest.substr(gap + 3);
    }
    for (const auto& piece : matcher.pieces) usable = usable && piece.size() >= kMinimumPiece;
    if (usable && !matcher.pieces.empty()) out.push_back(std::move(matcher));
  }
  return out;
}

bool matches(const SymptomMatcher& matcher, const std::string& line) {
  std::size_t at = 0;
  for (const auto& piece : matcher.pieces) {
    at = line.find(piece, at);
    if (at == std::string::npos) return false;
    at += piece.size();
  }
  return true;
}

std::string shortened(std::string text) {
  text = trimmed(text);
  constexpr std::size_t kMax = 200;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

}  // namespace

std::vector<LogMatch> scan_log(std::istream& in, const matrix::Matrix* matrix,
                               std::size_t* line_count) {
  std::vector<CompiledPattern> patterns;
  for (const auto& pattern : doctor_detail::builtin_log_patterns()) {
    CompiledPattern compiled{&pattern, std::nullopt};
    if (pattern.regex[0] != '\0') compiled.regex.emplace(pattern.regex);
    patterns.push_back(std::move(compiled));
  }
  const auto symptoms = symptom_matchers(matrix);
  std::vector<LogMatch> found;
  std::map<std::string, std::size_t> index_of;  // id -> position in `found`
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const CompiledPattern* hit = nullptr;
    for (const auto& compiled : patterns) {
      if (line.find(compiled.pattern->needle) == std::string::npos) continue;
      if (compiled.regex && !std::regex_search(line, *compiled.regex)) continue;
      hit = &compiled;
      break;
    }
    std::vector<const matrix::Rule*> rules;
    for (const auto& matcher : symptoms) {
      if (matches(matcher, line)) rules.push_back(matcher.rule);
    }
    if (hit == nullptr && rules.empty()) continue;
    LogMatch match;
    if (hit != nullptr) {
      match.id = hit->pattern->id;
      match.cause = hit->pattern->cause;
      match.fix = hit->pattern->fix;
    } else {
      const matrix::Rule& rule = *rules.front();
      match.id = rule.failure.empty() ? rule.id : rule.failure;
      match.cause = rule.message;
      match.fix = rule.fix;
    }
    for (const auto* rule : rules) match.rules.push_back(rule->id);
    const auto known = index_of.find(match.id);
    if (known != index_of.end()) {
      found[known->second].more_lines.push_back(number);
      continue;
    }
    match.line = number;
    match.text = shortened(line);
    index_of.emplace(match.id, found.size());
    found.push_back(std::move(match));
  }
  if (line_count != nullptr) *line_count = number;
  return found;
}

CommandOutput doctor_log(const DoctorLogOptions& options) {
  // A broken overlay should not stop a log from being read: fall back to the built-ins.
  std::optional<matrix::Matrix> matrix;
  std::string matrix_note;
  try {
    matrix = load_matrix_or_throw(options.matrix);
  } catch (const core::Error& error) {
    matrix_note = error.what();
  }
  std::vector<LogMatch> found;
  std::size_t lines = 0;
  const std::string name = options.log == "-" ? "standard input" : options.log.string();
  if (options.log == "-") {
    found = scan_log(std::cin, matrix ? &*matrix : nullptr, &lines);
  } else {
    std::ifstream in(options.log, std::ios::binary);
    if (!in) {
      throw core::Error(core::ExitCode::bad_input, "cannot read `" + name + "`",
                        "pass a log file or traceback (or `-` for standard input)");
    }
    found = scan_log(in, matrix ? &*matrix : nullptr, &lines);
  }
  CommandOutput out;
  if (!matrix_note.empty()) {
    out.diagnostics.push_back(
        Line{Mark::warning, 0, matrix_note + "; matching built-in patterns only", false, false});
  }
  const std::string count =
      std::to_string(found.size()) + " known failure" + (found.size() == 1 ? "" : "s");
  out.add("bevenv doctor --log " + name + ": " + count + " in " + std::to_string(lines) + " lines");
  nlohmann::json matches = nlohmann::json::array();
  for (const auto& match : found) {
    out.add("line " + std::to_string(match.line) + ": " + match.text + "  → " + match.id,
            Mark::problem);
    out.hint("cause: " + match.cause, 2);
    out.hint("fix: " + match.fix, 2);
    if (!match.rules.empty()) {
      std::string rules;
      for (const auto& id : match.rules) {
        rules += (rules.empty() ? "`" : ", `") + id + "`";
        const matrix::Rule* rule = matrix ? matrix->find_rule(id) : nullptr;
        if (rule != nullptr && !rule->failure.empty() && rule->failure != match.id) {
          rules += " (" + rule->failure + ")";
        }
      }
      out.add("matrix rules: " + rules + " (`bevenv matrix rules`)", Mark::none, 2);
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
    matches.push_back({{"id", match.id},
                       {"line", match.line},
                       {"more_lines", match.more_lines},
                       {"text", match.text},
                       {"cause", match.cause},
                       {"fix", match.fix},
                       {"rules", match.rules}});
  }
  if (found.empty()) {
    out.add("no known failure found; `bevenv matrix rules` lists the symptoms bevenv knows",
            Mark::ok);
  } else {
    out.exit_code = core::ExitCode::problem_found;
  }
  out.json = {{"log", name}, {"lines", lines}, {"matches", matches}};
  return out;
}

}  // namespace bevenv::app
