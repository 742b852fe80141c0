// Fuzzes the grammars for URL text from outside (core/outside_text) and relative URL joining
// (index/url.cpp). The first byte picks the page URL a link is resolved against; the rest is
// the href. A relative href never leaves the page's scheme and host nor keeps a dot segment,
// a resolved URL resolves to itself, and whatever a predicate accepts has the shape its
// header promises.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bevenv/core/outside_text.hpp"
#include "bevenv/index/project.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;
namespace core = bevenv::core;

namespace {

constexpr std::string_view kBases[] = {
    "https://idx.example/simple/six/",
    "https://idx.example:8443/a/b/c.html?x=1#frag",
    "http://mirror.example",
    "file:///srv/wheels/index.html",
};

bool is_hex_lower(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

void check_predicates(std::string_view text) {
  if (core::is_url_text(text)) {
    require(!text.empty() && text.size() <= 4096, "URL text of a length out of bounds");
    for (char c : text) {
      const auto u = static_cast<unsigned char>(c);
      require(u > 0x20 && u < 0x7f, "URL text with a control, space or non-ASCII byte");
      require(std::string_view("\"\\`{}<>|^").find(c) == std::string_view::npos,
              "URL text with a character RFC 3986 does not allow");
    }
  }
  if (core::is_artifact_filename(text)) {
    require(text.find('/') == std::string_view::npos && text.find('\\') == std::string_view::npos,
            "an artifact file name with a path separator");
    require(text != "." && text != ".." && text.front() != '.', "an artifact name like a dot");
    require(text.size() <= 255, "an artifact file name longer than a path component");
  }
  if (core::is_vcs_pin(text)) {
    require(text.starts_with("git+") && core::is_url_text(text.substr(4)), "a VCS pin's URL");
    const auto at = text.rfind('@');
    require(at != std::string_view::npos && text.size() - at - 1 == 40, "a VCS pin's commit");
  }
  if (core::is_sha256_hex(text)) {
    require(text.size() == 64, "a sha256 of another length");
    for (char c : text) require(is_hex_lower(c), "a sha256 with a non-hex digit");
  }
}

// The path part (before `?` or `#`) after the authority has no `.` or `..` segment.
bool has_dot_segment(std::string_view url, std::size_t path_start) {
  std::string_view path = url.substr(path_start);
  path = path.substr(0, path.find_first_of("?#"));
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto slash = path.find('/', start);
    const auto segment =
        path.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (segment == "." || segment == "..") return true;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return false;
}

void check_resolve(std::string_view base, std::string_view href) {
  const std::string url = bevenv::index::resolve_url(base, href);
  const auto scheme_end = base.find("://");
  const auto path_start = base.find('/', scheme_end + 3);
  const std::string_view authority = base.substr(0, path_start);
  const bool absolute =
      href.find("://") != std::string_view::npos && href.find(':') < href.find('/');
  if (!absolute && !href.starts_with("//")) {
    require(url.starts_with(std::string(authority) + "/"),
            "a relative href resolved off the page's host");
    require(!has_dot_segment(url, authority.size()), "a dot segment left in a resolved path");
  }
  if (url.find("://") != std::string::npos && url.find(':') < url.find('/')) {
    require(bevenv::index::resolve_url(base, url) == url, "a resolved URL moves again");
  }
  if (bevenv::index::is_allowed_link(base, url)) {
    require(core::is_url_text(url), "an allowed link that is not URL text");
    require(!core::is_remote_url(base) || core::is_remote_url(url),
            "a remote page allowed to link to a local file");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view base = kBases[data[0] % (sizeof kBases / sizeof kBases[0])];
  const std::string_view href(reinterpret_cast<const char*>(data) + 1, size - 1);  // NOLINT
  check_predicates(href);
  check_resolve(base, href);
  return 0;
}
