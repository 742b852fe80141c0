#include "bevenv/core/toml_nesting.hpp"

#include <vector>

namespace bevenv::core {
namespace {

// One open `[` or `{` inside a value, and the depth of what it holds.
struct Open {
  char bracket;
  std::size_t depth;
};

// Walks the text once, without recursion, tracking whether it reads a key or a value. The
// depth of a place is the parts of the current table header, plus the parts of each key and
// one per bracket on the way from there.
class Scanner {
 public:
  Scanner(std::string_view text, std::size_t max_depth) : text_(text), max_(max_depth) {}

  std::optional<NestingError> run() {
    while (at_ < text_.size() && !error_) {
      const char c = text_[at_];
      if (c == '#') {
        skip_comment();
      } else if (c == '"' || c == '\'') {
        skip_string();
      } else if (c == '\n') {
        step();
        if (open_.empty()) start_key();
      } else if (in_key_) {
        key_char(c);
      } else {
        value_char(c);
      }
    }
    return error_;
  }

 private:
  void step() {
    if (text_[at_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++at_;
  }

  bool starts_with(std::string_view token) const { return text_.substr(at_, 3) == token; }

  void fail(std::size_t depth) {
    error_ = NestingError{line_, column_,
                          "tables, arrays and dotted keys nest " + std::to_string(depth) +
                              " levels deep here; bevenv reads at most " + std::to_string(max_)};
  }

  std::size_t base() const { return open_.empty() ? table_depth_ : open_.back().depth; }

  void start_key() {
    in_key_ = true;
    key_parts_ = 1;
  }

  void skip_comment() {
    while (at_ < text_.size() && text_[at_] != '\n') step();
  }

  // Basic strings honour backslash escapes, literal strings do not; a single-line string
  // ends at the line break even when unterminated (toml++ reports that).
  void skip_string() {
    const char quote = text_[at_];
    const bool multi = starts_with(quote == '"' ? "\"\"\"" : "'''");
    const std::size_t opening = multi ? 3 : 1;
    for (std::size_t i = 0; i < opening; ++i) step();
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\\' && quote == '"' && at_ + 1 < text_.size()) {
        step();
        step();
      } else if (multi && starts_with(quote == '"' ? "\"\"\"" : "'''")) {
        for (int i = 0; i < 3; ++i) step();
        return;
      } else if (!multi && (c == quote || c == '\n')) {
        if (c == quote) step();
        return;
      } else {
        step();
      }
    }
  }

  // `[a.b.c]` or `[[a.b]]` at the top level; an array of tables adds one level.
  void header() {
    std::size_t parts = 1;
    step();
    if (at_ < text_.size() && text_[at_] == '[') {
      ++parts;
      step();
    }
    while (at_ < text_.size() && text_[at_] != ']' && text_[at_] != '\n' && !error_) {
      if (text_[at_] == '"' || text_[at_] == '\'') {
        skip_string();
        continue;
      }
      if (text_[at_] == '.' && ++parts > max_) fail(parts);
      step();
    }
    table_depth_ = parts;
  }

  void key_char(char c) {
    if (c == '[' && open_.empty()) {
      header();
      return;
    }
    if (c == '.' && base() + ++key_parts_ > max_) {
      fail(base() + key_parts_);
      return;
    }
    if (c == '=') {
      in_key_ = false;
      value_depth_ = base() + key_parts_;
    } else if (c == '}') {
      close();
      return;
    }
    step();
  }

  void value_char(char c) {
    if (c == '[' || c == '{') {
      const std::size_t depth = value_depth_ + 1;
      if (depth > max_) {
        fail(depth);
        return;
      }
      open_.push_back(Open{c, depth});
      if (c == '{') start_key();
      value_depth_ = depth;
    } else if (c == ']' || c == '}') {
      close();
      return;
    } else if (c == ',' && !open_.empty()) {
      if (open_.back().bracket == '{') start_key();
      value_depth_ = open_.back().depth;
    }
    step();
  }

  // After a closing bracket the enclosing array takes more values, an enclosing inline table
  // waits for `,` or `}`.
  void close() {
    if (!open_.empty()) open_.pop_back();
    in_key_ = false;
    if (!open_.empty()) value_depth_ = open_.back().depth;
    step();
  }

  std::string_view text_;
  std::size_t max_;
  std::size_t at_ = 0;
  std::size_t line_ = 1;
  std::size_t column_ = 1;
  std::vector<Open> open_;
  std::size_t table_depth_ = 0;  // parts of the current `[table]` header
  bool in_key_ = true;           // at a line start on the top level, or after `{` or `,` in one
  std::size_t key_parts_ = 1;    // parts of the key being read
  std::size_t value_depth_ = 0;  // the depth of a value at this place
  std::optional<NestingError> error_;
};

}  // namespace

std::optional<NestingError> check_toml_nesting(std::string_view text, std::size_t max_depth) {
  return Scanner(text, max_depth).run();
}

}  // namespace bevenv::core
