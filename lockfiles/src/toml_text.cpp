#include "toml_text.hpp"

#include <algorithm>
#include <cstdint>

#include "bevenv/core/error.hpp"
#include "bevenv/util/utf8.hpp"

namespace bevenv::lockfiles::detail {

std::string toml_string(std::string_view text, std::string_view field) {
  if (!util::is_valid_utf8(text))
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
