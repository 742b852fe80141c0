#pragma once
// Checks and quoting for text that goes from a lockfile into a Dockerfile or a shell line.
// A check throws core::Error(bad_input) naming the lockfile field; quoting never fails.
#include <string>
#include <string_view>

namespace bevenv::containers::detail {

// `"..."` for Dockerfile ENV/LABEL values: `\`, `"` and `$` escaped.
std::string dockerfile_quote(std::string_view text);

// No control characters (a newline would start a new Dockerfile instruction or pip option).
void check_single_line(std::string_view text, std::string_view field);
// An image reference: `[host[:port]/]path[:tag][@sha256:<64 hex>]`.
void check_image_reference(std::string_view text, std::string_view field);
// An absolute path of letters, digits and `._+-/`, without `..` components.
void check_image_path(std::string_view text, std::string_view field);
// An index, find-links page or path: http(s)/file URL or absolute path, no spaces.
void check_source_url(std::string_view text, std::string_view field);
// A shell command from the matrix: one line, not ending in a backslash.
void check_command(std::string_view text, std::string_view field);
// `sha256:` and 64 lower-case hex digits.
bool is_sha256_digest(std::string_view text);

}  // namespace bevenv::containers::detail
