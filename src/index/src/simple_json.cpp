// PEP 691 JSON project pages (with PEP 700 sizes and PEP 714 `core-metadata`).
#include <nlohmann/json.hpp>

#include "bevenv/index/project.hpp"

namespace bevenv::index {
namespace {

using json = nlohmann::json;

std::string string_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string sha256_from_hashes(const json& hashes) {
  if (!hashes.is_object()) return {};
  const auto it = hashes.find("sha256");
  if (it == hashes.end() || !it->is_string()) return {};
  std::string hex = it->get<std::string>();
  for (char& c : hex) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return hex.size() == 64 ? hex : std::string();
}

}  // namespace

core::Expected<std::vector<Artifact>, std::string> parse_simple_json(std::string_view text,
                                                                     std::string_view page_url,
                                                                     std::string_view project) {
  json page = json::parse(text.begin(), text.end(), nullptr, false);
  if (page.is_discarded()) return core::unexpected(std::string("the page is not valid JSON"));
  if (!page.is_object() || !page.contains("files") || !page["files"].is_array()) {
    return core::unexpected(std::string("the page has no `files` list (PEP 691)"));
  }
  std::vector<Artifact> out;
  for (const auto& file : page["files"]) {
    if (!file.is_object()) continue;
    const std::string filename = string_field(file, "filename");
    const std::string href = string_field(file, "url");
    if (filename.empty() || href.empty()) continue;
    const std::string absolute = resolve_url(page_url, href);
    if (!is_allowed_link(page_url, absolute)) continue;
    auto artifact =
        artifact_from_filename(filename, absolute.substr(0, absolute.find('#')), project);
    if (!artifact) continue;
    if (const auto h = file.find("hashes"); h != file.end())
      artifact->sha256 = sha256_from_hashes(*h);
    if (const auto size = file.find("size"); size != file.end() && size->is_number_unsigned()) {
      artifact->size = size->get<std::uint64_t>();
    }
    if (const auto rp = file.find("requires-python"); rp != file.end() && rp->is_string()) {
      if (auto spec = core::SpecifierSet::parse(rp->get<std::string>())) {
        artifact->requires_python = *spec;
      }
    }
    for (const char* key : {"core-metadata", "data-dist-info-metadata", "dist-info-metadata"}) {
      const auto meta = file.find(key);
      if (meta == file.end()) continue;
      if (meta->is_boolean()) {
        artifact->has_metadata_file = meta->get<bool>();
      } else if (meta->is_object()) {
        artifact->has_metadata_file = true;
        artifact->metadata_sha256 = sha256_from_hashes(*meta);
      }
      break;
    }
    if (const auto y = file.find("yanked"); y != file.end()) {
      artifact->yanked = (y->is_boolean() && y->get<bool>()) || y->is_string();
    }
    out.push_back(std::move(*artifact));
  }
  return out;
}

}  // namespace bevenv::index
