#include "toml_text.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "bevenv/core/error.hpp"

namespace bevenv::lockfiles::detail {

bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<std::uint8_t>(text[i]);
    std::size_t extra = 0;
    std::uint32_t code = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    if ((lead & 0xE0U) == 0xC0U) {
      extra = 1;
      code = lead & 0x1FU;
    } else if ((lead & 0xF0U) == 0xE0U) {
      extra = 2;
      code = lead & 0x0FU;
    } else if ((lead & 0xF8U) == 0xF0U) {
      extra = 3;
      code = lead & 0x07U;
    } else {
      return false;
    }
    if (i + extra >= text.size()) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto cont = static_cast<std::uint8_t>(text[i + k]);
      if ((cont & 0xC0U) != 0x80U) return false;
      code = (code << 6U) | (cont & 0x3FU);
    }
    constexpr std::array<std::uint32_t, 4> kMinimum{0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[extra] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
      return false;
    i += extra + 1;
  }
  return true;
}

std::string toml_string(std::string_view text, std::string_view field) {
  if (!is_valid_utf8(text))
    throw core::Error(core::ExitCode::failure,
                      "internal error: `" + std::string(field) + "` is not valid UTF-8",
                      "report this as a bug in bevenv");
  static constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out = "\"";
  out.reserve(text.size() + 2);
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default: {
        const auto byte = static_cast<std::uint8_t>(c);
        if (byte < 0x20 || byte == 0x7F) {
          out += "\\u00";
          out += kHex[byte >> 4U];
          out += kHex[byte & 0x0FU];
        } else {
          out += c;
        }
      }
    }
  }
  out += '"';
  return out;
}

std::string toml_key(std::string_view key, std::string_view field) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
  return bare ? std::string(key) : toml_string(key, field);
}

}  // namespace bevenv::lockfiles::detail
