#include "bevenv/core/name.hpp"

#include <array>

namespace bevenv::core {
namespace {

bool is_name_separator(char c) { return c == '-' || c == '_' || c == '.'; }
bool is_name_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The characters a normalized name never holds (upper case, `_`, `.`), as a table: a lock asks
// this of some 30,000 names.
constexpr std::array<bool, 256> kNotNormalized = [] {
  std::array<bool, 256> table{};
  for (char c = 'A'; c <= 'Z'; ++c) table[static_cast<unsigned char>(c)] = true;
  table[static_cast<unsigned char>('_')] = true;
  table[static_cast<unsigned char>('.')] = true;
  return table;
}();

}  // namespace

std::string normalize_name(std::string_view name) {
  // Most names come normalized (the matrix's, the solver's records'): copied, not rebuilt.
  if (is_normalized_name(name)) return std::string(name);
  std::string out;
  out.reserve(name.size());
  for (const char c : name) {
    if (is_name_separator(c)) {
      if (out.empty() || out.back() != '-') out += '-';
    } else if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

bool is_normalized_name(std::string_view name) {
  bool odd = false;
  for (const char c : name) odd |= kNotNormalized[static_cast<unsigned char>(c)];
  return !odd && name.find("--") == std::string_view::npos;
}

bool is_valid_name(std::string_view name) {
  if (name.empty() || !is_name_alnum(name.front()) || !is_name_alnum(name.back())) return false;
  for (const char c : name) {
    if (!is_name_alnum(c) && !is_name_separator(c)) return false;
  }
  return true;
}

}  // namespace bevenv::core
