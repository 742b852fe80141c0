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

// `hashes.sha256` (or another object's `sha256`): empty when absent. One that is not 64 hex
// digits is an error naming the file and the field, never "no hash".
core::Expected<std::string, std::string> sha256_from_hashes(const json& hashes,
                                                            const std::string& field,
                                                            const std::string& filename) {
  if (!hashes.is_object()) return std::string();
  const auto it = hashes.find("sha256");
  if (it == hashes.end()) return std::string();
  const auto wrong = [&](const std::string& what) {
    return core::unexpected("`" + filename + "`: `" + field + ".sha256` " + what);
  };
  if (!it->is_string()) return wrong("is not a string");
  std::string hex = it->get<std::string>();
  for (char& c : hex) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return wrong("is not hexadecimal");
  }
  if (hex.size() != 64) return wrong("has " + std::to_string(hex.size()) + " hex digits, not 64");
  return hex;
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
    if (const auto h = file.find("hashes"); h != file.end()) {
      auto hash = sha256_from_hashes(*h, "hashes", filename);
      if (!hash) return core::unexpected(hash.error());
      artifact->sha256 = std::move(hash).value();
    }
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
        auto hash = sha256_from_hashes(*meta, key, filename);
        if (!hash) return core::unexpected(hash.error());
        artifact->metadata_sha256 = std::move(hash).value();
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
