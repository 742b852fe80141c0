#include "pep508_scan.hpp"

#include <array>
#include <cstdint>

#include "bevenv/util/utf8.hpp"
#include "pep440_text.hpp"

namespace bevenv::core::pep508 {
namespace {

unsigned char byte_at(std::string_view text, std::size_t pos) {
  return static_cast<unsigned char>(text[pos]);
}

bool is_ascii_alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Python's `\w` for Unicode text is "alphanumeric or underscore". Outside ASCII, the blocks
// below hold punctuation, symbols and spaces; everything else is treated as a letter.
bool is_word_code_point(std::uint32_t c) {
  if (c < 0x80) return is_ascii_alnum(static_cast<unsigned char>(c)) || c == '_';
  if (pep440::is_python_space(c)) return false;
  if (c >= 0x80 && c <= 0xBF) {
    return c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 || c == 0xBA ||
           c == 0xBC || c == 0xBD || c == 0xBE;
  }
  if (c == 0xD7 || c == 0xF7) return false;
  if (c >= 0x2000 && c <= 0x2BFF) return false;
  if (c >= 0x3000 && c <= 0x303F) return false;
  if (c >= 0xFE30 && c <= 0xFE4F) return false;
  if (c >= 0xFF00 && c <= 0xFF0F) return false;
  if (c >= 0xFFF0 && c <= 0xFFFF) return false;
  if (c >= 0x1F000 && c <= 0x1FAFF) return false;
  return true;
}

bool word_char_at(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return false;
  const util::Utf8Char d = util::decode_utf8(text, pos);
  return d.valid && is_word_code_point(d.code_point);
}

// Start of the UTF-8 character that ends just before `pos`.
std::size_t previous_char_start(std::string_view text, std::size_t pos) {
  std::size_t start = pos - 1;
  const std::size_t limit = pos >= 4 ? pos - 4 : 0;
  while (start > limit && (byte_at(text, start) & 0xC0U) == 0x80U) --start;
  if (util::decode_utf8(text, start).length == pos - start) return start;
  return pos - 1;
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool starts_with_nocase(std::string_view text, std::size_t pos, std::string_view word) {
  if (pos + word.size() > text.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (lower(text[pos + i]) != word[i]) return false;
  }
  return true;
}

bool is_digit_at(std::string_view text, std::size_t pos) {
  return pos < text.size() && text[pos] >= '0' && text[pos] <= '9';
}

std::size_t skip_digits(std::string_view text, std::size_t pos) {
  while (is_digit_at(text, pos)) ++pos;
  return pos;
}

bool is_separator_at(std::string_view text, std::size_t pos) {
  return pos < text.size() && (text[pos] == '-' || text[pos] == '_' || text[pos] == '.');
}

std::size_t skip_separator(std::string_view text, std::size_t pos) {
  return is_separator_at(text, pos) ? pos + 1 : pos;
}

// `(?:alpha|beta|...)` tries its alternatives in order; the first that matches wins because
// everything after it in the group always matches.
std::size_t match_keyword(std::string_view text, std::size_t pos,
                          std::initializer_list<std::string_view> words) {
  for (std::string_view word : words) {
    if (starts_with_nocase(text, pos, word)) return pos + word.size();
  }
  return npos;
}

// `[-_\.]?+ (keyword) [-_\.]?+ [0-9]*+`, optional as a whole.
std::size_t match_tagged_segment(std::string_view text, std::size_t pos,
                                 std::initializer_list<std::string_view> words) {
  const std::size_t after_keyword = match_keyword(text, skip_separator(text, pos), words);
  if (after_keyword == npos) return pos;
  return skip_digits(text, skip_separator(text, after_keyword));
}

std::size_t match_pre(std::string_view text, std::size_t pos) {
  return match_tagged_segment(text, pos, {"alpha", "beta", "preview", "pre", "a", "b", "c", "rc"});
}

std::size_t match_post(std::string_view text, std::size_t pos) {
  if (pos < text.size() && text[pos] == '-' && is_digit_at(text, pos + 1)) {
    return skip_digits(text, pos + 1);
  }
  return match_tagged_segment(text, pos, {"post", "rev", "r"});
}

std::size_t match_dev(std::string_view text, std::size_t pos) {
  return match_tagged_segment(text, pos, {"dev"});
}

bool is_local_char_at(std::string_view text, std::size_t pos) {
  return pos < text.size() && is_ascii_alnum(byte_at(text, pos));
}

std::size_t match_local(std::string_view text, std::size_t pos) {
  if (pos >= text.size() || text[pos] != '+' || !is_local_char_at(text, pos + 1)) return pos;
  std::size_t end = pos + 1;
  while (is_local_char_at(text, end)) ++end;
  while (is_separator_at(text, end) && is_local_char_at(text, end + 1)) {
    ++end;
    while (is_local_char_at(text, end)) ++end;
  }
  return end;
}

enum class OperatorKind { arbitrary, equality, compatible, ordered };

}  // namespace

std::size_t char_length(std::string_view text, std::size_t pos) {
  return util::decode_utf8(text, pos).length;
}

std::size_t python_space_length(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return 0;
  const util::Utf8Char d = util::decode_utf8(text, pos);
  return d.valid && pep440::is_python_space(d.code_point) ? d.length : 0;
}

std::size_t skip_python_spaces(std::string_view text, std::size_t pos) {
  while (std::size_t length = python_space_length(text, pos)) pos += length;
  return pos;
}

std::string_view strip_python_spaces(std::string_view text) {
  const std::size_t begin = skip_python_spaces(text, 0);
  std::size_t end = text.size();
  while (end > begin) {
    const std::size_t start = previous_char_start(text, end);
    if (python_space_length(text, start) != end - start) break;
    end = start;
  }
  return text.substr(begin, end - begin);
}

std::size_t skip_blanks(std::string_view text, std::size_t pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  return pos;
}

bool at_word_boundary(std::string_view text, std::size_t pos) {
  const bool before = pos > 0 && word_char_at(text, previous_char_start(text, pos));
  return before != word_char_at(text, pos);
}

std::size_t match_identifier(std::string_view text, std::size_t pos) {
  if (pos >= text.size() || !is_ascii_alnum(byte_at(text, pos))) return npos;
  std::size_t end = pos + 1;
  while (end < text.size() && (is_ascii_alnum(byte_at(text, end)) || is_separator_at(text, end))) {
    ++end;
  }
  // The regex backtracks from the longest run to the first position that is a word boundary.
  for (; end > pos; --end) {
    if (at_word_boundary(text, end)) return end;
  }
  return npos;
}

std::size_t match_specifier(std::string_view text, std::size_t pos) {
  if (text.substr(pos, 3) == "===") {
    std::size_t end = skip_python_spaces(text, pos + 3);
    const std::size_t start = end;
    while (end < text.size() && text[end] != ';' && text[end] != ')' &&
           python_space_length(text, end) == 0) {
      end += char_length(text, end);
    }
    if (end > start) return end;
    // With nothing after `===`, the regex tries `==` next, which then needs a digit at `=`.
    return npos;
  }
  const std::string_view two = text.substr(pos, 2);
  OperatorKind kind = OperatorKind::ordered;
  std::size_t end = pos + 2;
  if (two == "==" || two == "!=") {
    kind = OperatorKind::equality;
  } else if (two == "~=") {
    kind = OperatorKind::compatible;
  } else if (two == "<=" || two == ">=") {
    kind = OperatorKind::ordered;
  } else if (!two.empty() && (two[0] == '<' || two[0] == '>')) {
    end = pos + 1;
  } else {
    return npos;
  }
  end = skip_python_spaces(text, end);
  if (end < text.size() && (text[end] == 'v' || text[end] == 'V')) ++end;
  const std::size_t epoch_end = skip_digits(text, end);
  if (epoch_end > end && epoch_end < text.size() && text[epoch_end] == '!') end = epoch_end + 1;
  if (!is_digit_at(text, end)) return npos;
  end = skip_digits(text, end);
  std::size_t release_parts = 1;
  while (end + 1 < text.size() && text[end] == '.' && is_digit_at(text, end + 1)) {
    end = skip_digits(text, end + 1);
    ++release_parts;
  }
  if (kind == OperatorKind::compatible && release_parts < 2) return npos;
  if (kind == OperatorKind::equality && text.substr(end, 2) == ".*") return end + 2;
  end = match_dev(text, match_post(text, match_pre(text, end)));
  if (kind == OperatorKind::equality) end = match_local(text, end);
  return end;
}

bool is_specifier_text(std::string_view text) {
  const std::size_t start = skip_python_spaces(text, 0);
  const std::size_t end = match_specifier(text, start);
  return end != npos && skip_python_spaces(text, end) == text.size();
}

std::size_t column_at(std::string_view text, std::size_t pos) {
  if (pos < text.size()) return pos + 1;
  return text.empty() ? 1 : text.size();
}

ParseError error_at(std::string_view text, std::size_t pos, std::string message) {
  return ParseError{std::move(message), column_at(text, pos)};
}

std::string found_at(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return "the end";
  std::size_t end = pos;
  while (end < text.size() && end - pos < 24 &&
         (is_ascii_alnum(byte_at(text, end)) || is_separator_at(text, end))) {
    ++end;
  }
  if (end == pos) end = pos + char_length(text, pos);
  std::string quoted = "`";
  for (char c : text.substr(pos, end - pos)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      constexpr std::array<char, 16> kHex = {'0', '1', '2', '3', '4', '5', '6', '7',
                                             '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
      quoted += "\\x";
      quoted += kHex[byte >> 4U];
      quoted += kHex[byte & 0x0FU];
    } else {
      quoted += c;
    }
  }
  return quoted + "`";
}

}  // namespace bevenv::core::pep508
