#include "pep440_text.hpp"

#include "bevenv/util/utf8.hpp"

namespace bevenv::core::pep440 {

bool is_python_space(std::uint32_t c) {
  if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20)) return true;
  if (c < 0x80) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::size_t space_length(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return 0;
  const util::Utf8Char d = util::decode_utf8(text, pos);
  return is_python_space(d.code_point) ? d.length : 0;
}

std::size_t skip_spaces(std::string_view text, std::size_t pos) {
  while (const std::size_t n = space_length(text, pos)) pos += n;
  return pos;
}

std::size_t trim_end(std::string_view text, std::size_t begin) {
  std::size_t end = begin;
  std::size_t pos = begin;
  while (pos < text.size()) {
    const std::size_t n = space_length(text, pos);
    if (n == 0) {
      pos += util::decode_utf8(text, pos).length;
      end = pos;
    } else {
      pos += n;
    }
  }
  return end;
}

ParseError to_parse_error(std::string_view text, const ErrorAt& error) {
  // Columns count characters, not bytes, so that a caret lines up under non-ASCII text.
  std::size_t column = 1;
  std::size_t pos = 0;
  while (pos < error.offset && pos < text.size()) {
    pos += util::decode_utf8(text, pos).length;
    ++column;
  }
  return ParseError{error.message, column};
}

std::string describe_char_at(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return "the end of the text";
  if (space_length(text, pos) != 0) return "a space";
  const util::Utf8Char d = util::decode_utf8(text, pos);
  return "`" + std::string(text.substr(pos, d.length)) + "`";
}

}  // namespace bevenv::core::pep440
