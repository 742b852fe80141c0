#pragma once
// Grammars for text that arrives from outside (index pages, lockfiles) and is later used as a
// URL, a file name or a shell word. Checked where it enters, so that nothing downstream has to
// trust a served string.
#include <string_view>

namespace bevenv::core {

// An absolute `http://`, `https://` or `file://` URL made only of the characters RFC 3986
// allows (unreserved, reserved and `%`): no spaces, quotes, backslashes, backticks, braces or
// control bytes, at most 4096 bytes. Shell metacharacters RFC 3986 allows (`;`, `$`, `&`, `(`,
// `'`) may remain: whoever puts a URL into a shell line must still quote it.
bool is_url_text(std::string_view url);

// `http` or `https` (case-insensitive), the schemes a remote page may link to.
bool is_remote_url(std::string_view url);

// A wheel or sdist file name: 1 to 255 bytes of letters, digits and `._+!-`, not starting with
// `.`, ending in `.whl`, `.tar.gz`, `.tgz`, `.zip` or `.tar.bz2`. No `/`, `\`, `..` path
// segment, NUL or control byte can pass, so such a name is safe as one path component.
bool is_artifact_filename(std::string_view filename);

// `git+https://HOST/PATH@COMMIT`: URL text (see is_url_text) pinned to a full 40-digit
// lower-case commit, so the source tree it names cannot move.
bool is_vcs_pin(std::string_view text);

// 64 lower-case hexadecimal digits.
bool is_sha256_hex(std::string_view text);

}  // namespace bevenv::core
