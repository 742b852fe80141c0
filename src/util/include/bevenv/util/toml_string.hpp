#pragma once
// TOML's basic string, spelled once for every writer of TOML text (the lockfile, pylock.toml,
// doctor's observed records, the matrix snapshot), so that the same value is escaped the same
// way in each file bevenv writes.
#include <string>
#include <string_view>

namespace bevenv::util {

// `text` as a TOML basic string, with its quotes: `"` and `\` escaped, control characters by
// TOML's short escapes (`\n`, `\t`, ...) or as `\u00XX`; other bytes as they are (the caller
// checks that they are UTF-8 where that can fail).
std::string toml_basic_string(std::string_view text);

}  // namespace bevenv::util
