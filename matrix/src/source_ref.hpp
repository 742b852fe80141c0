#pragma once
// The grammar of a `sources` entry: every fact in the matrix cites an upstream source, in one of
// three forms, so that a reader can open it without access to this project's notes.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toml_reader.hpp"

namespace bevenv::matrix::detail {

// One of:
//   a URL:                  `https://...` or `http://...` (see core::is_url_text), with a host;
//   a GitHub issue or PR:   `owner/repo#N`, N a positive number;
//   a file at a tag:        `owner/repo@ref:path`, ref a branch, tag or commit.
// `owner` is a GitHub account name (letters, digits, `-`), `repo` letters, digits and `._-`.
bool is_source_ref(std::string_view text);

// The accepted forms, for messages.
inline constexpr std::string_view kSourceForms =
    "a URL (`https://...`), a GitHub issue or pull request (`owner/repo#123`) or a file at a tag "
    "(`owner/repo@tag:path`)";

// Reports each entry of the string array `key` that is not a source reference, at its own
// position; `record` names the record in the message (`numpy 1.20.0`), or is empty.
void check_sources(TableReader& reader, std::string_view key, std::string_view record);

// The required `sources` of a record that states a fact (a rule, a failure): at least one, each
// checked as above.
std::optional<std::vector<std::string>> read_sources(TableReader& reader, std::string_view record);

}  // namespace bevenv::matrix::detail
