#pragma once
// One project's files as a source lists them: PEP 503 HTML, PEP 691 JSON, a find-links page
// (an HTML page of links to wheels) or a local directory.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/core/specifier.hpp"
#include "bevenv/core/version.hpp"
#include "bevenv/index/wheel.hpp"

namespace bevenv::index {

enum class ArtifactKind : std::uint8_t { wheel, sdist };

struct Artifact {
  std::string filename;
  std::string url;   // absolute, without the `#sha256=` fragment
  std::string name;  // normalized project name, from the file name
  core::Version version;
  ArtifactKind kind = ArtifactKind::wheel;
  std::optional<WheelName> wheel;  // set for wheels
  std::string sha256;              // lower-case hex; empty when the source gives none
  std::optional<std::uint64_t> size;
  core::SpecifierSet requires_python;  // empty: any
  // PEP 658/714: the core metadata is published at `url + ".metadata"`; its sha256 when given.
  bool has_metadata_file = false;
  std::string metadata_sha256;
  bool yanked = false;
};

// Links of a PEP 503 page or a find-links page. Relative hrefs resolve against `page_url`.
// Links whose file name is neither a wheel nor an sdist are skipped, as are (when `project` is
// not empty) files of other projects: find-links pages list many. A sha256 (`#sha256=`,
// `data-core-metadata="sha256=..."`) that is not 64 hex digits is an error naming the file.
core::Expected<std::vector<Artifact>, std::string> parse_simple_html(std::string_view html,
                                                                     std::string_view page_url,
                                                                     std::string_view project = {});

// A PEP 691 project page (`application/vnd.pypi.simple.v1+json`). A page that is not valid
// JSON, or lacks `files`, or has a `sha256` that is not 64 hex digits, is an error naming what
// is wrong.
core::Expected<std::vector<Artifact>, std::string> parse_simple_json(std::string_view json,
                                                                     std::string_view page_url,
                                                                     std::string_view project = {});

// Resolves `href` against `base` (RFC 3986 for the forms indexes use: absolute URLs,
// scheme-relative `//host/...`, absolute paths and relative paths with `..`).
std::string resolve_url(std::string_view base, std::string_view href);

// Whether a page at `page_url` may send bevenv to `link` (both absolute): the link must be URL
// text (core::is_url_text), and a remote (http/https) page may only link to http or https. A
// `file://` link on a remote page would make bevenv read a file of this machine on a
// stranger's word.
bool is_allowed_link(std::string_view page_url, std::string_view link);

// A file name an artifact may have: wheel or sdist of `project` (normalized; empty: any).
std::optional<Artifact> artifact_from_filename(std::string_view filename, std::string_view url,
                                               std::string_view project = {});

}  // namespace bevenv::index
