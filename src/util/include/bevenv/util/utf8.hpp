#pragma once
// UTF-8, decoded strictly (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
// Python decodes text this way before packaging's parsers see it, and TOML requires it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bevenv::util {

struct Utf8Char {
  std::uint32_t code_point = 0xFFFD;  // U+FFFD where the bytes are not valid
  std::size_t length = 1;             // bytes taken; 1 for an invalid or truncated sequence
  bool valid = false;
};

// The character that starts at `pos` (< text.size()).
Utf8Char decode_utf8(std::string_view text, std::size_t pos);

bool is_valid_utf8(std::string_view text);

// `code_point` (<= U+10FFFF) appended as UTF-8.
void append_utf8(std::string& out, std::uint32_t code_point);

}  // namespace bevenv::util
