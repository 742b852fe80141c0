// Scanning a log for the known failures: the built-in patterns (doctor_log_patterns.cpp) and
// the matrix rules' `symptom` texts. No I/O, so the log fuzzer runs it alone.
#include <map>
#include <optional>
#include <regex>

#include "bevenv/app/doctor.hpp"
#include "doctor_log.hpp"

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

// libstdc++'s regex recurses once per character a `[...]*` consumes, so a megabyte line would
// overflow the stack: the regex sees only a window around the needle, wider than any real
// symptom text.
bool regex_near(const std::string& line, std::size_t needle_at, const std::regex& regex) {
  constexpr std::size_t kBefore = 256;
  constexpr std::size_t kWindow = 2048;
  const std::size_t from = needle_at > kBefore ? needle_at - kBefore : 0;
  const std::string window = line.substr(from, kWindow);
  return std::regex_search(window, regex);
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
      const auto at = line.find(compiled.pattern->needle);
      if (at == std::string::npos) continue;
      if (compiled.regex && !regex_near(line, at, *compiled.regex)) continue;
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

}  // namespace bevenv::app
