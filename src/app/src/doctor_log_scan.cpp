// Scanning a log for the known failures: the matrix's failure catalogue (`[[failure]]`
// patterns) and the matrix rules' `symptom` texts. No I/O, so the log fuzzer runs it alone.
#include <map>
#include <optional>
#include <regex>

#include "bevenv/app/doctor.hpp"
#include "bevenv/util/text.hpp"
#include "doctor_log.hpp"

namespace bevenv::app {
namespace {

struct CompiledPattern {
  const matrix::Failure* failure;
  const matrix::LogSignature* signature;
  std::optional<std::regex> regex;
};

// A rule's symptom, split at `...` (the elisions in symptom texts); all pieces in order.
struct SymptomMatcher {
  const matrix::Rule* rule;
  std::vector<std::string> pieces;
};

// Pieces shorter than this would match unrelated lines.
constexpr std::size_t kMinimumPiece = 12;
// The widest line a terminal or log collector is taken to wrap at.
constexpr std::size_t kWrapWidth = 1024;

std::vector<CompiledPattern> compiled_patterns(const matrix::Matrix* matrix) {
  std::vector<CompiledPattern> out;
  if (matrix == nullptr) return out;
  for (const auto& failure : matrix->failures) {
    for (const auto& signature : failure.patterns) {
      CompiledPattern compiled{&failure, &signature, std::nullopt};
      // The loader refused regexes that do not compile.
      if (!signature.regex.empty()) compiled.regex.emplace(signature.regex);
      out.push_back(std::move(compiled));
    }
  }
  return out;
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
      const std::string piece(util::trim(rest.substr(0, gap)));
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
  text = std::string(util::trim(text));
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

// A regex-only pattern has no needle: it sees the line's start, and long lines only in part.
bool pattern_matches(const CompiledPattern& pattern, const std::string& line) {
  const std::string& literal = pattern.signature->literal;
  const auto at = literal.empty() ? 0 : line.find(literal);
  if (at == std::string::npos) return false;
  return !pattern.regex || regex_near(line, at, *pattern.regex);
}

struct LineHit {
  const matrix::Failure* failure = nullptr;
  std::vector<const matrix::Rule*> rules;
  bool empty() const { return failure == nullptr && rules.empty(); }
};

LineHit hit_of(const std::string& line, const std::vector<CompiledPattern>& patterns,
               const std::vector<SymptomMatcher>& symptoms) {
  LineHit hit;
  for (const auto& pattern : patterns) {
    if (!pattern_matches(pattern, line)) continue;
    hit.failure = pattern.failure;
    break;
  }
  for (const auto& matcher : symptoms) {
    if (matches(matcher, line)) hit.rules.push_back(matcher.rule);
  }
  return hit;
}

// The catalogue entry speaks for the match; a rule only where no entry does.
LogMatch match_of(const LineHit& hit, const matrix::Matrix& matrix,
                  const matrix::FixContext& context) {
  const matrix::Failure* failure = hit.failure;
  if (failure == nullptr && !hit.rules.front()->failure.empty()) {
    failure = matrix.find_failure(hit.rules.front()->failure);
  }
  LogMatch match;
  if (failure != nullptr) {
    match.id = failure->id;
    match.cause = failure->cause;
    const matrix::FailureFix* fix = failure->fix_for(context);
    match.fix = fix != nullptr ? fix->text : hit.rules.empty() ? "" : hit.rules.front()->fix;
  } else {
    const matrix::Rule& rule = *hit.rules.front();
    match.id = rule.failure.empty() ? rule.id : rule.failure;
    match.cause = rule.message;
    match.fix = rule.fix;
  }
  for (const auto* rule : hit.rules) match.rules.push_back(rule->id);
  return match;
}

}  // namespace

namespace doctor_detail {

std::string plain_log_line(const std::string& line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\r' || c == '\0') continue;
    if (c != '\x1b') {
      out += c;
      continue;
    }
    // CSI (`ESC [ params final`), else a two-byte escape.
    if (i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && (static_cast<unsigned char>(line[i]) < 0x40 ||
                                 static_cast<unsigned char>(line[i]) > 0x7e)) {
        ++i;
      }
    } else {
      ++i;
    }
  }
  return out;
}

std::optional<core::Version> python_of_log(std::string_view text) {
  constexpr std::string_view kNeedle = "/python3.";
  for (auto at = text.find(kNeedle); at != std::string_view::npos;
       at = text.find(kNeedle, at + 1)) {
    const std::size_t minor = at + kNeedle.size();
    std::size_t end = minor;
    while (end < text.size() && end - minor < 3 && text[end] >= '0' && text[end] <= '9') ++end;
    if (end == minor || end - minor > 2 || end >= text.size() || text[end] != '/') continue;
    auto version = core::Version::parse("3." + std::string(text.substr(minor, end - minor)));
    if (version) return std::move(version).value();
  }
  return std::nullopt;
}

}  // namespace doctor_detail

std::vector<LogMatch> scan_log(std::istream& in, const matrix::Matrix* matrix,
                               std::size_t* line_count, const matrix::FixContext& context) {
  const auto patterns = compiled_patterns(matrix);
  const auto symptoms = symptom_matchers(matrix);
  std::vector<LogMatch> found;
  std::map<std::string, std::size_t> index_of;  // id -> position in `found`
  std::size_t number = 0;
  std::string previous;  // the last line, when it matched nothing: a wrapped line's first half
  for (std::string raw; std::getline(in, raw);) {
    ++number;
    std::string line = doctor_detail::plain_log_line(raw);
    std::size_t at = number;
    LineHit hit = hit_of(line, patterns, symptoms);
    if (hit.empty() && !previous.empty()) {
      // A terminal or a log collector wrapped the message: try it whole, at its first line.
      // Wrapping keeps every character (a trailing space stays on the first line), so the
      // halves are joined as they are.
      hit = hit_of(previous + line, patterns, symptoms);
      if (!hit.empty()) {
        at = number - 1;
        line = previous + line;
      }
    }
    if (hit.empty()) {
      // Only a terminal-wide line can be the first half of a wrapped one; a long line kept
      // here would have every following line scanned twice over its length.
      previous = line.size() <= kWrapWidth ? std::move(line) : std::string();
      continue;
    }
    previous.clear();
    LogMatch match = match_of(hit, *matrix, context);
    const auto known = index_of.find(match.id);
    if (known != index_of.end()) {
      found[known->second].more_lines.push_back(at);
      continue;
    }
    match.line = at;
    match.text = shortened(line);
    index_of.emplace(match.id, found.size());
    found.push_back(std::move(match));
  }
  if (line_count != nullptr) *line_count = number;
  return found;
}

}  // namespace bevenv::app
