#pragma once
// Text helpers every module needs and none owns: nothing here knows about packages, GPUs or
// bevenv (ccache's util/ rule). ASCII only, on purpose: names, tags and headers are ASCII, and
// the locale of the machine must not change how they compare.
#include <string>
#include <string_view>
#include <vector>

namespace bevenv::util {

// `items` with `separator` between each pair.
std::string join(const std::vector<std::string>& items, std::string_view separator);

// `text` without leading and trailing characters of `blanks`.
std::string_view trim(std::string_view text, std::string_view blanks = " \t\r\n");

// `text` with A-Z lowered; other bytes as they are.
std::string ascii_lower(std::string_view text);

// Whether `text` equals `lower` (lower case already) with A-Z in `text` lowered; no copy.
bool iequals_ascii(std::string_view text, std::string_view lower);

// `text` in POSIX sh single quotes: nothing inside is expanded; a quote inside is closed,
// escaped and reopened (`'it'\''s'`). Always quotes, even text that needs none.
std::string sh_single_quoted(std::string_view text);
// `text` as one sh word: as it is when made only of characters sh leaves alone (letters, digits,
// `_./:=+,@%^-`), else sh_single_quoted.
std::string sh_word(std::string_view text);

}  // namespace bevenv::util
