#pragma once
// The `content_hash` of a lockfile's canonical text: the writer puts it between the head and the
// body, and the pins scan (pins.cpp) checks a file against it.
#include <string>
#include <string_view>

namespace bevenv::lockfiles::detail {

// `sha256:` and the hex digest of `head` then `body`.
std::string content_digest(std::string_view head, std::string_view body);

}  // namespace bevenv::lockfiles::detail
