#include "toml_text.hpp"

#include <algorithm>

#include "bevenv/core/error.hpp"
#include "bevenv/util/toml_string.hpp"
#include "bevenv/util/utf8.hpp"

namespace bevenv::lockfiles::detail {

std::string field_of(std::string_view table, std::string_view key) {
  std::string field(table);
  if (!key.empty()) field.append(field.empty() ? "" : ".").append(key);
  return field;
}

std::string toml_string(std::string_view text, std::string_view table, std::string_view key) {
  if (!util::is_valid_utf8(text)) {
    throw core::Error(core::ExitCode::failure,
                      "internal error: `" + field_of(table, key) + "` is not valid UTF-8",
                      "report this as a bug in bevenv");
  }
  return util::toml_basic_string(text);
}

std::string toml_key(std::string_view key, std::string_view field) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
  return bare ? std::string(key) : toml_string(key, field);
}

}  // namespace bevenv::lockfiles::detail
