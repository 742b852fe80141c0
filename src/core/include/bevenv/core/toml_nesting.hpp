#pragma once
// A byte-level guard run before toml++ sees a file: toml++ parses and destroys nested tables
// and arrays recursively, so a 60 kB `[a.a.a....]` header or `[[[[...` overflows the stack.
// No toml++ here (core is the bottom layer): only brackets, dots, strings and comments count.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bevenv::core {

// How deep tables, arrays and dotted keys may nest in any TOML file bevenv reads.
inline constexpr std::size_t kMaxTomlDepth = 64;

struct NestingError {
  std::size_t line = 1;    // 1-based
  std::size_t column = 1;  // 1-based, in bytes
  std::string message;
};

// The first place where a table header, a dotted key, an array or an inline table sits deeper
// than `max_depth` levels, counting the enclosing header, keys and brackets; nullopt when none
// does. Malformed TOML is left to toml++ to report.
std::optional<NestingError> check_toml_nesting(std::string_view text,
                                               std::size_t max_depth = kMaxTomlDepth);

}  // namespace bevenv::core
