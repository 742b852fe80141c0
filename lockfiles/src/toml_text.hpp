#pragma once
// Spelling of TOML scalars for the canonical writer: we print TOML ourselves so that the byte
// layout of a lockfile is ours to fix, not a library's.
#include <string>
#include <string_view>

namespace bevenv::lockfiles::detail {

// Where a value sits, `table.key`, is how an error about it names it: `target.python`,
// `package[3].artifacts[0].url`. Top-level keys have no table; a table's own errors no key.
std::string field_of(std::string_view table, std::string_view key);
// A TOML basic string with its quotes: `"`, `\` and control characters escaped, other UTF-8
// kept as is. Throws core::Error (failure) when `text` is not valid UTF-8, naming the field
// (field_of): the name is made only then, not for each of the thousands of values a lockfile
// writes.
std::string toml_string(std::string_view text, std::string_view table, std::string_view key = {});
// A key: bare when it is only ASCII letters, digits, `-` and `_`; quoted otherwise.
std::string toml_key(std::string_view key, std::string_view field);
}  // namespace bevenv::lockfiles::detail
