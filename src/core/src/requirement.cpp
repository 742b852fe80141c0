// PEP 508 requirement parser, following packaging's _parser.py (which decides what pip
// accepts) with messages that say what was expected where.
#include "bevenv/core/requirement.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "pep508_scan.hpp"

namespace bevenv::core {
namespace {

using pep508::npos;

// The characters packaging lets a specifier list hold before `;`, `)` or the end.
bool is_specifier_list_char(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte == '\t' || (byte >= 0x20 && byte <= 0x7E && byte != ')' && byte != ';');
}

// The operator at `pos`, longest first, or empty.
std::string_view operator_at(std::string_view text, std::size_t pos) {
  for (std::string_view op : {"===", "==", "!=", "~=", "<=", ">=", "<", ">"}) {
    if (text.substr(pos, op.size()) == op) return op;
  }
  return {};
}

struct SpecifierSplit {
  std::vector<std::string_view> items;  // stripped, empty items dropped (as SpecifierSet does)
  std::size_t commas = 0;
  std::string_view invalid;  // the first item that is not a specifier
};

SpecifierSplit split_specifiers(std::string_view text) {
  SpecifierSplit split;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item =
        pep508::strip_python_spaces(text.substr(start, comma == npos ? npos : comma - start));
    if (!item.empty()) {
      split.items.push_back(item);
      if (split.invalid.empty() && !pep508::is_specifier_text(item)) split.invalid = item;
    }
    if (comma == npos) break;
    ++split.commas;
    start = comma + 1;
  }
  return split;
}

bool blank(char c) { return c == ' ' || c == '\t'; }

class RequirementParser {
 public:
  explicit RequirementParser(std::string_view text) : text_(text) {}

  Expected<Requirement, ParseError> parse() {
    Requirement requirement;
    pos_ = pep508::skip_blanks(text_, 0);
    const std::size_t name_end = pep508::match_identifier(text_, pos_);
    if (name_end == npos) {
      return fail(pos_, "expected a package name such as `torch`, found " + found());
    }
    requirement.name = std::string(text_.substr(pos_, name_end - pos_));
    pos_ = pep508::skip_blanks(text_, name_end);

    const bool had_extras = at('[');
    if (auto extras = parse_extras(); !extras) {
      return unexpected(extras.error());
    } else {
      requirement.extras = std::move(extras.value());
    }

    if (at('@')) {
      auto url = parse_url();
      if (!url) return unexpected(url.error());
      requirement.url = std::move(url.value());
      if (pos_ == text_.size()) return requirement;
    } else {
      const std::size_t specifier_start = pos_;
      auto specifiers = parse_specifier(had_extras);
      if (!specifiers) return unexpected(specifiers.error());
      auto set = to_specifier_set(specifiers.value(), specifier_start);
      if (!set) return unexpected(set.error());
      requirement.specifier = std::move(set.value());
      if (pos_ == text_.size()) return requirement;
    }

    // The marker runs to the end. It is parsed with everything before it blanked out, so
    // that its columns count from the start of the requirement.
    std::string padded(pos_ + 1, ' ');
    padded.append(text_.substr(pos_ + 1));
    auto marker = Marker::parse(padded);
    if (!marker) return unexpected(marker.error());
    requirement.marker = std::move(marker.value());
    return requirement;
  }

 private:
  Unexpected<ParseError> fail(std::size_t at_pos, std::string message) const {
    return unexpected(pep508::error_at(text_, at_pos, std::move(message)));
  }
  std::string found() const { return pep508::found_at(text_, pos_); }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  // extras = "[" WS? (identifier (WS? "," WS? identifier)*)? WS? "]" WS?
  Expected<std::vector<std::string>, ParseError> parse_extras() {
    std::set<std::string> normalized;
    if (!at('[')) return std::vector<std::string>();
    const std::size_t open = pos_;
    pos_ = pep508::skip_blanks(text_, pos_ + 1);
    bool any = false;
    if (std::size_t end = pep508::match_identifier(text_, pos_); end != npos) {
      normalized.insert(normalize_name(text_.substr(pos_, end - pos_)));
      pos_ = end;
      any = true;
      while (true) {
        pos_ = pep508::skip_blanks(text_, pos_);
        if (pep508::match_identifier(text_, pos_) != npos) {
          return fail(pos_, "expected `,` between extra names, found " + found());
        }
        if (!at(',')) break;
        pos_ = pep508::skip_blanks(text_, pos_ + 1);
        end = pep508::match_identifier(text_, pos_);
        if (end == npos) return fail(pos_, "expected an extra name after `,`, found " + found());
        normalized.insert(normalize_name(text_.substr(pos_, end - pos_)));
        pos_ = end;
      }
    }
    pos_ = pep508::skip_blanks(text_, pos_);
    if (!at(']')) {
      const std::string opened = " to close the `[` at column " + std::to_string(open + 1);
      return fail(pos_, (any ? "expected `,` or `]`" : "expected an extra name or `]`") + opened +
                            ", found " + found());
    }
    pos_ = pep508::skip_blanks(text_, pos_ + 1);
    return std::vector<std::string>(normalized.begin(), normalized.end());
  }

  // "@" WS? URL (WS (";" marker)?)?  -- the URL is everything up to whitespace.
  Expected<std::string, ParseError> parse_url() {
    pos_ = pep508::skip_blanks(text_, pos_ + 1);
    std::size_t end = pos_;
    while (end < text_.size() && pep508::python_space_length(text_, end) == 0) {
      end += pep508::char_length(text_, end);
    }
    if (end == pos_) return fail(pos_, "expected a URL after `@`");
    std::string url(text_.substr(pos_, end - pos_));
    pos_ = end;
    if (pos_ == text_.size()) return url;
    if (!blank(text_[pos_])) {
      return fail(pos_, "expected a space and `;` after the URL, found " + found());
    }
    pos_ = pep508::skip_blanks(text_, pos_);
    if (pos_ != text_.size() && !at(';')) {
      return fail(pos_, "expected `;` and a marker after the URL, found " + found());
    }
    return url;
  }

  // Either `(` specifiers `)` or bare specifiers; returns the specifier text as read.
  Expected<std::string, ParseError> parse_specifier(bool had_extras) {
    if (at('(')) {
      const std::size_t open = pos_;
      pos_ = pep508::skip_blanks(text_, pos_ + 1);
      auto specifiers = parse_specifier_list();
      if (!specifiers) return specifiers;
      if (!at(')')) {
        return fail(pos_, std::string(specifiers->empty() ? "expected a version specifier or `)`"
                                                          : "expected `,` or `)`") +
                              " to close the `(` at column " + std::to_string(open + 1) +
                              ", found " + found());
      }
      pos_ = pep508::skip_blanks(text_, pos_ + 1);
      if (pos_ != text_.size() && !at(';')) {
        return fail(pos_, "expected `;` or the end after `)`, found " + found());
      }
      return specifiers;
    }
    auto specifiers = parse_specifier_list();
    if (!specifiers) return specifiers;
    if (pos_ != text_.size() && !at(';')) {
      if (!specifiers->empty()) {
        return fail(pos_,
                    "expected `,`, `;` or the end after the version specifier, found " + found());
      }
      return fail(pos_, std::string("expected a version specifier such as `>=1.0`, ") +
                            (had_extras ? "" : "`[`, `@`, ") + "`;` or the end, found " + found());
    }
    return specifiers;
  }

  // version_many. packaging first tries the whole list in one piece (it may hold spaces
  // around commas), then reads specifier tokens one by one, which also accepts some
  // whitespace the one-piece form does not.
  Expected<std::string, ParseError> parse_specifier_list() {
    if (pos_ == text_.size()) return std::string();
    std::size_t end = pos_;
    while (end < text_.size() && is_specifier_list_char(text_[end])) ++end;
    if (end > pos_ && (end == text_.size() || text_[end] == ';' || text_[end] == ')')) {
      const std::string_view whole = text_.substr(pos_, end - pos_);
      const SpecifierSplit split = split_specifiers(whole);
      const std::string_view trimmed = whole.substr(0, whole.find_last_not_of(" \t") + 1);
      const bool commas_fit = split.items.size() == split.commas + 1 ||
                              (!split.items.empty() && split.items.size() == split.commas &&
                               !trimmed.empty() && trimmed.back() == ',');
      if (split.invalid.empty() && commas_fit) {
        pos_ = end;
        return std::string(whole);
      }
    }
    return read_specifier_tokens();
  }

  Expected<std::string, ParseError> read_specifier_tokens() {
    std::string specifiers;
    while (true) {
      const std::size_t end = pep508::match_specifier(text_, pos_);
      if (end == npos) {
        if (auto error = explain_missing_specifier(specifiers)) return unexpected(*error);
        break;
      }
      const std::string_view token = text_.substr(pos_, end - pos_);
      pos_ = end;
      specifiers += token;
      if (text_.substr(pos_, 2) == ".*") {
        const bool equality =
            token.starts_with("!=") || (token.starts_with("==") && !token.starts_with("==="));
        return fail(pos_, equality ? "`.*` cannot follow a pre-release, post-release, dev or "
                                     "local version"
                                   : "`.*` can only follow `==` or `!=`");
      }
      if (at('+') && pos_ + 1 < text_.size() && is_lower_alnum(text_[pos_ + 1])) {
        return fail(pos_, "a local version label (`+...`) can only follow `==` or `!=`");
      }
      pos_ = pep508::skip_blanks(text_, pos_);
      if (!at(',')) break;
      specifiers += ',';
      pos_ = pep508::skip_blanks(text_, pos_ + 1);
    }
    return specifiers;
  }

  static bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

  // Where no specifier token starts at pos_: a precise message when an operator is there
  // or a comma came before; otherwise nothing (the caller reports what follows).
  std::optional<ParseError> explain_missing_specifier(const std::string& read_so_far) const {
    const std::string_view op = operator_at(text_, pos_);
    if (!op.empty()) {
      const std::size_t version_at = pep508::skip_python_spaces(text_, pos_ + op.size());
      if (op == "~=" && version_at < text_.size() && text_[version_at] >= '0' &&
          text_[version_at] <= '9') {
        return pep508::error_at(text_, version_at,
                                "`~=` needs a version with at least two parts, such as `~=1.4`");
      }
      return pep508::error_at(text_, version_at,
                              "expected a version after `" + std::string(op) + "`, found " +
                                  pep508::found_at(text_, version_at));
    }
    if (!read_so_far.empty() && read_so_far.back() == ',' && pos_ < text_.size() &&
        text_[pos_] != ';' && text_[pos_] != ')') {
      return pep508::error_at(
          text_, pos_, "expected a version specifier such as `>=1.0` after `,`, found " + found());
    }
    return std::nullopt;
  }

  // packaging builds SpecifierSet(text) from what was read, which can still reject it.
  Expected<SpecifierSet, ParseError> to_specifier_set(const std::string& text,
                                                      std::size_t start) const {
    const SpecifierSplit split = split_specifiers(text);
    if (!split.invalid.empty()) {
      return fail(start, "invalid version specifier `" + std::string(split.invalid) + "`");
    }
    std::string joined;
    for (std::string_view item : split.items) {
      if (!joined.empty()) joined += ',';
      joined += item;
    }
    auto set = SpecifierSet::parse(joined);
    if (!set) {
      return unexpected(ParseError{set.error().message, pep508::column_at(text_, start)});
    }
    return set;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

Expected<Requirement, ParseError> Requirement::parse(std::string_view text) {
  return RequirementParser(text).parse();
}

std::string Requirement::normalized_name() const { return normalize_name(name); }

std::string Requirement::to_string() const {
  std::string out = name;
  if (!extras.empty()) {
    out += '[';
    for (std::size_t i = 0; i < extras.size(); ++i) {
      if (i > 0) out += ',';
      out += extras[i];
    }
    out += ']';
  }
  out += specifier.to_string();
  if (!url.empty()) {
    out += " @ " + url;
    if (!marker.empty()) out += ' ';
  }
  if (!marker.empty()) out += "; " + marker.to_string();
  return out;
}

}  // namespace bevenv::core
