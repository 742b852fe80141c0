#pragma once
// Reading a lockfile back: strict (unknown keys, wrong types and broken facts are errors), and
// every error says where (file:line:column), which field, and what was expected.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "bevenv/core/expected.hpp"
#include "bevenv/lockfiles/model.hpp"

namespace bevenv::lockfiles {

struct ReadError {
  std::string file;
  std::size_t line = 0;    // 1-based
  std::size_t column = 0;  // 1-based
  std::string message;     // "`package[2].version`: expected a string, found an integer"
  std::string hint;        // what to do about it
  // "bevenv.lock:14:11: `package[2].version`: expected a string, found an integer"
  std::string to_string() const;
};

// Parses lockfile text; `file` is the name errors show. The result is canonical (canonicalize).
core::Expected<Lockfile, ReadError> parse_lockfile(std::string_view text, std::string_view file);

// Reads and parses `path`; throws core::Error (bad_input) with the ReadError's text and hint,
// or when the file cannot be read.
Lockfile read_lockfile(const std::filesystem::path& path);
// Its two steps, for a reader that looks at the text first (read_pins): the text of a regular
// file, and its parse, each throwing as read_lockfile does.
std::string read_lockfile_text(const std::filesystem::path& path);
Lockfile parse_lockfile_or_throw(std::string_view text, const std::filesystem::path& path);

}  // namespace bevenv::lockfiles
