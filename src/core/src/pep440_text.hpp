#pragma once
// Character-level helpers for the PEP 440 parsers. packaging runs its regular expressions on
// Unicode text: `\s` and str.strip() accept every character str.isspace() accepts, so the
// byte-level scanners here decode UTF-8 wherever whitespace may appear.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bevenv/core/error.hpp"

namespace bevenv::core::pep440 {

// Whether str.isspace() holds for the character `c`.
bool is_python_space(std::uint32_t c);
// Byte length of the Python whitespace character at `pos`, 0 if there is none.
std::size_t space_length(std::string_view text, std::size_t pos);
std::size_t skip_spaces(std::string_view text, std::size_t pos);
// The position just after the last non-space character at or after `begin`.
std::size_t trim_end(std::string_view text, std::size_t begin);

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_ascii_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// A parse error located by byte offset; converted to a 1-based character column at the end.
struct ErrorAt {
  std::string message;
  std::size_t offset = 0;
};
ParseError to_parse_error(std::string_view text, const ErrorAt& error);

// The character at `pos` quoted for a message: `x`, "a space", or "the end of the text".
std::string describe_char_at(std::string_view text, std::size_t pos);

}  // namespace bevenv::core::pep440
