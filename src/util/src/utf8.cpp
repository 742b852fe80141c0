#include "bevenv/util/utf8.hpp"

#include <array>

namespace bevenv::util {
namespace {

struct Lead {
  std::size_t length = 0;  // 0: not a lead byte
  std::uint32_t bits = 0;
};

Lead lead_of(unsigned char byte) {
  if (byte < 0x80) return {1, byte};
  if ((byte & 0xE0U) == 0xC0U) return {2, byte & 0x1FU};
  if ((byte & 0xF0U) == 0xE0U) return {3, byte & 0x0FU};
  if ((byte & 0xF8U) == 0xF0U) return {4, byte & 0x07U};
  return {};
}

}  // namespace

Utf8Char decode_utf8(std::string_view text, std::size_t pos) {
  const Lead lead = lead_of(static_cast<unsigned char>(text[pos]));
  if (lead.length == 1) return {lead.bits, 1, true};
  if (lead.length == 0 || pos + lead.length > text.size()) return {};
  std::uint32_t code_point = lead.bits;
  for (std::size_t i = 1; i < lead.length; ++i) {
    const auto next = static_cast<unsigned char>(text[pos + i]);
    if ((next & 0xC0U) != 0x80U) return {};
    code_point = (code_point << 6U) | (next & 0x3FU);
  }
  // The shortest form only: an overlong `/` must not pass for one.
  constexpr std::array<std::uint32_t, 5> kSmallest{0, 0, 0x80, 0x800, 0x10000};
  if (code_point < kSmallest[lead.length] || code_point > 0x10FFFF) return {};
  if (code_point >= 0xD800 && code_point <= 0xDFFF) return {};
  return {code_point, lead.length, true};
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t pos = 0; pos < text.size();) {
    // ASCII, nearly every byte a lockfile writes, needs no decoding.
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const Utf8Char c = decode_utf8(text, pos);
    if (!c.valid) return false;
    pos += c.length;
  }
  return true;
}

void append_utf8(std::string& out, std::uint32_t code_point) {
  const auto byte = [&out](std::uint32_t value) { out += static_cast<char>(value); };
  if (code_point < 0x80) {
    byte(code_point);
    return;
  }
  if (code_point < 0x800) {
    byte(0xC0U | (code_point >> 6U));
  } else if (code_point < 0x10000) {
    byte(0xE0U | (code_point >> 12U));
    byte(0x80U | ((code_point >> 6U) & 0x3FU));
  } else {
    byte(0xF0U | (code_point >> 18U));
    byte(0x80U | ((code_point >> 12U) & 0x3FU));
    byte(0x80U | ((code_point >> 6U) & 0x3FU));
  }
  byte(0x80U | (code_point & 0x3FU));
}

}  // namespace bevenv::util
