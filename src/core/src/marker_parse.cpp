// PEP 508 marker parser, following packaging's _parser.py rule for rule (which decides what
// pip accepts), with messages that say what was expected where.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "bevenv/core/error.hpp"
#include "bevenv/core/marker.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/util/utf8.hpp"
#include "marker_node.hpp"
#include "pep508_scan.hpp"

namespace bevenv::core {
namespace {

using pep508::npos;

// The tokenizer's VARIABLE alternatives, in the order its regex tries them.
constexpr std::array<std::string_view, 20> kVariableSpellings = {
    "python_version",
    "python_full_version",
    "os_name",
    "os.name",
    "sys_platform",
    "sys.platform",
    "platform_release",
    "platform_system",
    "platform_version",
    "platform.version",
    "platform_machine",
    "platform.machine",
    "platform_python_implementation",
    "platform.python_implementation",
    "python_implementation",
    "implementation_name",
    "implementation_version",
    "extras",
    "extra",
    "dependency_groups",
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class MarkerParser {
 public:
  explicit MarkerParser(std::string_view text) : text_(text) {}

  Expected<Marker::Node, ParseError> parse_full() {
    auto group = parse_group(0);
    if (!group) return group;
    if (pos_ != text_.size()) {
      return fail(pos_, "expected `and`, `or` or the end of the marker, found " + found());
    }
    return group;
  }

 private:
  Unexpected<ParseError> fail(std::size_t at, std::string message) const {
    return unexpected(pep508::error_at(text_, at, std::move(message)));
  }
  std::string found() const { return pep508::found_at(text_, pos_); }

  bool at_keyword(std::string_view word) const {
    return text_.substr(pos_, word.size()) == word && pep508::at_word_boundary(text_, pos_) &&
           pep508::at_word_boundary(text_, pos_ + word.size());
  }

  // marker = atom (BOOLOP atom)*
  Expected<Marker::Node, ParseError> parse_group(int depth) {
    Marker::Node group;
    auto first = parse_atom(depth);
    if (!first) return first;
    group.atoms.push_back(std::move(first.value()));
    while (true) {
      MarkerJoin join = MarkerJoin::and_;
      if (at_keyword("or")) {
        join = MarkerJoin::or_;
        pos_ += 2;
      } else if (at_keyword("and")) {
        pos_ += 3;
      } else {
        break;
      }
      auto next = parse_atom(depth);
      if (!next) return next;
      group.joins.push_back(join);
      group.atoms.push_back(std::move(next.value()));
    }
    return group;
  }

  // atom = WS? ( "(" marker ")" | item ) WS?
  Expected<Marker::Node, ParseError> parse_atom(int depth) {
    pos_ = pep508::skip_blanks(text_, pos_);
    Marker::Node atom;
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (depth >= kMaxMarkerNesting) {
        return fail(pos_, "marker is nested more than " + std::to_string(kMaxMarkerNesting) +
                              " parentheses deep");
      }
      const std::size_t open = pos_++;
      auto inner = parse_group(depth + 1);
      if (!inner) return inner;
      if (pos_ >= text_.size() || text_[pos_] != ')') {
        return fail(pos_, "expected `and`, `or` or `)` to close the `(` at column " +
                              std::to_string(open + 1) + ", found " + found());
      }
      ++pos_;
      atom = std::move(inner.value());
    } else {
      auto item = parse_item();
      if (!item) return item;
      atom = std::move(item.value());
    }
    pos_ = pep508::skip_blanks(text_, pos_);
    return atom;
  }

  // item = var WS? op WS? var
  Expected<Marker::Node, ParseError> parse_item() {
    Marker::Node item;
    item.is_group = false;
    auto lhs = parse_operand();
    if (!lhs) return unexpected(lhs.error());
    pos_ = pep508::skip_blanks(text_, pos_);
    auto op = parse_operator();
    if (!op) return unexpected(op.error());
    pos_ = pep508::skip_blanks(text_, pos_);
    auto rhs = parse_operand();
    if (!rhs) return unexpected(rhs.error());
    item.lhs = std::move(lhs.value());
    item.op = std::move(op.value());
    item.rhs = std::move(rhs.value());
    return item;
  }

  Expected<MarkerOperand, ParseError> parse_operand() {
    if (pep508::at_word_boundary(text_, pos_)) {
      for (std::string_view spelling : kVariableSpellings) {
        if (text_.substr(pos_, spelling.size()) == spelling &&
            pep508::at_word_boundary(text_, pos_ + spelling.size())) {
          pos_ += spelling.size();
          std::string name(spelling);
          for (char& c : name) c = c == '.' ? '_' : c;
          if (name == "python_implementation") name = "platform_python_implementation";
          return MarkerOperand{true, std::move(name)};
        }
      }
    }
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'')) {
      const std::size_t close = text_.find(text_[pos_], pos_ + 1);
      if (close == npos) {
        return fail(pos_, std::string("expected a closing `") + text_[pos_] +
                              "` for the string that starts here");
      }
      const std::size_t open = pos_;
      pos_ = close + 1;
      auto value = decode_string(open + 1, close);
      if (!value) return unexpected(value.error());
      return MarkerOperand{false, std::move(value.value())};
    }
    return fail(pos_,
                "expected a marker variable such as `python_version`, or a quoted string, found " +
                    found());
  }

  Expected<std::string, ParseError> parse_operator() {
    if (at_keyword("in")) {
      pos_ += 2;
      return std::string("in");
    }
    if (at_keyword("not")) {
      pos_ += 3;
      const std::size_t after_blanks = pep508::skip_blanks(text_, pos_);
      if (after_blanks == pos_) return fail(pos_, "expected a space and `in` after `not`");
      pos_ = after_blanks;
      if (!at_keyword("in")) return fail(pos_, "expected `in` after `not`, found " + found());
      pos_ += 2;
      return std::string("not in");
    }
    for (std::string_view op : {"===", "==", "~=", "!=", "<=", ">=", "<", ">"}) {
      if (text_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        return std::string(op);
      }
    }
    return fail(pos_,
                "expected a marker operator (`==`, `!=`, `<`, `<=`, `>`, `>=`, `~=`, `===`, "
                "`in` or `not in`), found " +
                    found());
  }

  // packaging reads a quoted string with Python's literal_eval, so backslash escapes and the
  // characters a Python string literal cannot hold behave as in Python.
  Expected<std::string, ParseError> decode_string(std::size_t begin, std::size_t end) const {
    std::string value;
    for (std::size_t i = begin; i < end; ++i) {
      const char c = text_[i];
      if (c == '\n' || c == '\r' || c == '\0') {
        return fail(i, "a quoted string cannot hold a line break or a NUL character");
      }
      if (c != '\\') {
        value += c;
        continue;
      }
      if (i + 1 >= end) {
        return fail(i, "a backslash cannot end a quoted string (it escapes the quote)");
      }
      auto escaped = decode_escape(i, end, value);
      if (!escaped) return unexpected(escaped.error());
      i = escaped.value();
    }
    return value;
  }

  // Decodes the escape whose backslash is at `at`; returns the index of its last character.
  Expected<std::size_t, ParseError> decode_escape(std::size_t at, std::size_t end,
                                                  std::string& value) const {
    const char c = text_[at + 1];
    // Python's one-letter escapes, and the control character each stands for.
    static constexpr std::string_view kLetters = "abfnrtv";
    static constexpr std::string_view kControls = "\a\b\f\n\r\t\v";
    if (const std::size_t i = kLetters.find(c); i != std::string_view::npos) {
      value += kControls[i];
      return at + 1;
    }
    switch (c) {
      case '\n':
        return at + 1;
      case '\r':
        return at + 2 < end && text_[at + 2] == '\n' ? at + 2 : at + 1;
      case '\\':
      case '\'':
      case '"':
        value += c;
        return at + 1;
      case 'x':
        return decode_hex_escape(at, end, 2, value);
      case 'u':
        return decode_hex_escape(at, end, 4, value);
      case 'U':
        return decode_hex_escape(at, end, 8, value);
      case 'N':
        return fail(at, "`\\N{...}` escapes are not supported in marker strings");
      case '\0':
        return fail(at + 1, "a quoted string cannot hold a NUL character");
      default:
        break;
    }
    if (c >= '0' && c <= '7') {
      std::uint32_t code_point = 0;
      std::size_t last = at;
      while (last + 1 < end && last - at < 3 && text_[last + 1] >= '0' && text_[last + 1] <= '7') {
        code_point = code_point * 8 + static_cast<std::uint32_t>(text_[last + 1] - '0');
        ++last;
      }
      util::append_utf8(value, code_point);
      return last;
    }
    // Python keeps unknown escapes as written.
    value += '\\';
    return at;
  }

  Expected<std::size_t, ParseError> decode_hex_escape(std::size_t at, std::size_t end,
                                                      std::size_t digits,
                                                      std::string& value) const {
    std::uint32_t code_point = 0;
    for (std::size_t k = 0; k < digits; ++k) {
      const std::size_t i = at + 2 + k;
      const int digit = i < end ? hex_value(text_[i]) : -1;
      if (digit < 0) {
        return fail(at, "expected " + std::to_string(digits) + " hex digits after `\\" +
                            text_[at + 1] + "` in quoted string");
      }
      code_point = code_point * 16 + static_cast<std::uint32_t>(digit);
    }
    if (code_point > 0x10FFFF) return fail(at, "escape names a character beyond U+10FFFF");
    util::append_utf8(value, code_point);
    return at + 1 + digits;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

bool is_set_variable(const MarkerOperand& operand) {
  return operand.is_variable && (operand.text == "extras" || operand.text == "dependency_groups");
}

// packaging normalizes the literal compared with `extra` (PEP 685) when parsing, which also
// changes how the marker prints.
void normalize_extra_literals(Marker::Node& node) {
  if (node.is_group) {
    for (Marker::Node& atom : node.atoms) normalize_extra_literals(atom);
    return;
  }
  if (node.lhs.is_variable && node.lhs.text == "extra" && !node.rhs.is_variable) {
    node.rhs.text = normalize_name(node.rhs.text);
  } else if (node.rhs.is_variable && node.rhs.text == "extra" && !node.lhs.is_variable) {
    node.lhs.text = normalize_name(node.lhs.text);
  } else if (is_set_variable(node.rhs) && !node.lhs.is_variable) {
    node.lhs.text = normalize_name(node.lhs.text);
  }
}

}  // namespace

Expected<Marker, ParseError> Marker::parse(std::string_view text) {
  auto root = MarkerParser(text).parse_full();
  if (!root) return unexpected(root.error());
  normalize_extra_literals(root.value());
  return Marker(std::make_unique<Node>(std::move(root.value())));
}

}  // namespace bevenv::core
