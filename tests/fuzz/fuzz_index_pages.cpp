// Fuzzes the simple-index page readers: PEP 503 HTML (and find-links pages) and PEP 691 JSON.
// The first byte picks the reader and whether a project name filters the links; the rest is
// the page. Whatever a page says, what comes back is well formed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/index/project.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;
using bevenv::index::Artifact;

namespace {

bool is_sha256(const std::string& hex) {
  if (hex.empty()) return true;  // none published
  if (hex.size() != 64) return false;
  for (char c : hex) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void check(const std::vector<Artifact>& artifacts, std::string_view project) {
  for (const Artifact& a : artifacts) {
    require(!a.filename.empty(), "an artifact without a file name");
    require(!a.name.empty(), "an artifact without a project name");
    require(project.empty() || a.name == project, "a file of another project");
    require(a.url.find('#') == std::string::npos, "a URL that keeps its fragment");
    require(is_sha256(a.sha256), "a sha256 that is not 64 lower-case hex digits");
    require(is_sha256(a.metadata_sha256), "a metadata sha256 that is not 64 hex digits");
    require(a.metadata_sha256.empty() || a.has_metadata_file, "a metadata hash without a file");
    require(a.wheel.has_value() == (a.kind == bevenv::index::ArtifactKind::wheel),
            "a wheel without its parsed name");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view page(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string_view project = (data[0] & 2) != 0 ? "six" : "";
  const std::string_view url = "https://idx.example/simple/six/";
  if ((data[0] & 1) != 0) {
    const auto parsed = bevenv::index::parse_simple_json(page, url, project);
    if (parsed) check(*parsed, project);
    if (!parsed) require(!parsed.error().empty(), "an empty error");
  } else {
    const auto parsed = bevenv::index::parse_simple_html(page, url, project);
    if (parsed) check(*parsed, project);
    if (!parsed) require(!parsed.error().empty(), "an empty error");
  }
  return 0;
}
