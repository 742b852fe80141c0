#include "bevenv/util/toml_string.hpp"

#include <cstdint>

namespace bevenv::util {
namespace {

// TOML's short escape for `c`, or null where it has none.
const char* short_escape(char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\t':
      return "\\t";
    case '\n':
      return "\\n";
    case '\f':
      return "\\f";
    case '\r':
      return "\\r";
    default:
      return nullptr;
  }
}

}  // namespace

std::string toml_basic_string(std::string_view text) {
  static constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out = "\"";
  out.reserve(text.size() + 2);
  for (const char c : text) {
    const auto byte = static_cast<std::uint8_t>(c);
    if (const char* escape = short_escape(c)) {
      out += escape;
    } else if (byte < 0x20 || byte == 0x7F) {
      out += "\\u00";
      out += kHex[byte >> 4U];
      out += kHex[byte & 0x0FU];
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

}  // namespace bevenv::util
