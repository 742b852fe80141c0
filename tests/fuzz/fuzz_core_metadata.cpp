// Fuzzes core metadata (METADATA / PKG-INFO, index/metadata.cpp) and the old setuptools
// `requires.txt` conversion (sdist_scan.cpp). Input: the metadata text, optionally a NUL byte
// and a requires.txt. What parses is well formed; the description body never changes what the
// headers say; requires.txt lines become Requires-Dist / Provides-Extra lines only and can
// never change the Name or Version of the PKG-INFO they are added to.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bevenv/core/name.hpp"
#include "bevenv/index/metadata.hpp"
#include "fuzz_check.hpp"
#include "local_files.hpp"
#include "sdist_scan.hpp"

using bevenv::fuzz::require;
namespace index = bevenv::index;

namespace {

bool same(const index::CoreMetadata& a, const index::CoreMetadata& b) {
  if (a.name != b.name || a.version != b.version ||
      a.requires_python.to_string() != b.requires_python.to_string() ||
      a.provides_extra != b.provides_extra || a.requires_dist.size() != b.requires_dist.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.requires_dist.size(); ++i) {
    if (a.requires_dist[i].to_string() != b.requires_dist[i].to_string()) return false;
  }
  return true;
}

void check_metadata(const std::string& text) {
  const auto parsed = index::parse_core_metadata(text);
  if (!parsed) {
    require(!parsed.error().empty(), "a refusal that says nothing");
    return;
  }
  for (const auto& extra : parsed->provides_extra) {
    require(bevenv::core::normalize_name(extra) == extra, "an extra that is not normalized");
  }
  const auto headers = index::parse_core_metadata(index::local::header_block(text));
  require(headers.has_value() && same(*headers, *parsed), "the body changed what headers say");
}

void check_requires_txt(const std::string& pkg_info, std::string_view requires_txt) {
  const std::string lines = index::requires_dist_lines(requires_txt);
  std::size_t pos = 0;
  while (pos < lines.size()) {
    const auto end = lines.find('\n', pos);
    require(end != std::string::npos, "a Requires-Dist line without its newline");
    const std::string_view line = std::string_view(lines).substr(pos, end - pos);
    require(line.starts_with("Requires-Dist: ") || line.starts_with("Provides-Extra: "),
            "requires.txt became a field other than Requires-Dist or Provides-Extra");
    pos = end + 1;
  }
  const auto before = index::parse_core_metadata(pkg_info);
  const auto after = index::parse_core_metadata(index::with_header_lines(pkg_info, lines));
  if (before && after) {
    require(after->name == before->name && after->version == before->version,
            "requires.txt changed the Name or Version");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  const auto nul = input.find('\0');
  const std::string text(input.substr(0, nul));
  check_metadata(text);
  if (nul != std::string_view::npos) check_requires_txt(text, input.substr(nul + 1));
  return 0;
}
