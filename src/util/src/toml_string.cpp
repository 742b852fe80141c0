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
  // Runs that need no escape (URLs, hashes, versions: all of most texts) are copied whole.
  std::size_t plain = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<std::uint8_t>(c);
    const char* escape = short_escape(c);
    if (escape == nullptr && byte >= 0x20 && byte != 0x7F) continue;
    out.append(text, plain, i - plain);
    plain = i + 1;
    if (escape != nullptr) {
      out += escape;
    } else {
      out += "\\u00";
      out += kHex[byte >> 4U];
      out += kHex[byte & 0x0FU];
    }
  }
  out.append(text, plain);
  out += '"';
  return out;
}

}  // namespace bevenv::util
