// MemorySource (memory_source.hpp): the PackageSource contract answered from maps.
#include "memory_source.hpp"

#include <stdexcept>

#include "bevenv/core/sha256.hpp"

namespace bevenv::testing {

MemorySource::MemorySource(std::vector<index::Source> sources) : sources_(std::move(sources)) {}

MemorySource& MemorySource::publish(const index::Source& source, const std::string& filename,
                                    std::string metadata, bool cheap) {
  const std::string url = source.location + "/" + filename;
  auto artifact = index::artifact_from_filename(filename, url);
  if (!artifact) throw std::invalid_argument("not a wheel or sdist name: " + filename);
  published_[source.location][artifact->name].push_back(url);
  files_[url] = File{std::move(*artifact), std::move(metadata), cheap, std::nullopt};
  return *this;
}

void MemorySource::break_source(const index::Source& source, std::string error) {
  broken_sources_[source.location] = std::move(error);
}

void MemorySource::break_metadata(const std::string& filename, std::string error) {
  bool found = false;
  for (auto& [url, file] : files_) {
    if (file.artifact.filename != filename) continue;
    file.error = error;
    found = true;
  }
  if (!found) throw std::invalid_argument("no file `" + filename + "` was published");
}

std::string MemorySource::metadata_text(const std::string& name, const std::string& version,
                                        const std::vector<std::string>& requires_dist,
                                        const std::string& requires_python) {
  std::string text = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n";
  if (!requires_python.empty()) text += "Requires-Python: " + requires_python + "\n";
  for (const auto& r : requires_dist) text += "Requires-Dist: " + r + "\n";
  return text;
}

core::Expected<index::Listing, std::string> MemorySource::list_one(
    const std::string& name, const std::vector<index::Source>& sources) {
  index::Listing listing;
  listing.name = name;
  for (const index::Source& s : sources) {
    if (const auto broken = broken_sources_.find(s.location); broken != broken_sources_.end()) {
      return core::unexpected("cannot read `" + name + "` from `" + s.location +
                              "`: " + broken->second);
    }
    const auto page = published_.find(s.location);
    if (page == published_.end()) continue;
    const auto project = page->second.find(name);
    if (project == page->second.end()) continue;
    listing.source = s;
    for (const auto& filename : project->second)
      listing.artifacts.push_back(files_.at(filename).artifact);
    break;
  }
  return listing;
}

std::map<std::string, core::Expected<index::Listing, std::string>> MemorySource::list(
    const std::vector<std::string>& names,
    const std::map<std::string, std::vector<index::Source>>& only) {
  std::map<std::string, core::Expected<index::Listing, std::string>> out;
  for (const auto& name : names) {
    listed_.push_back(name);
    const auto pinned = only.find(name);
    out.emplace(name, list_one(name, pinned != only.end() ? pinned->second : sources_));
  }
  return out;
}

std::vector<std::optional<core::Expected<index::CoreMetadata, std::string>>> MemorySource::metadata(
    const std::vector<index::Artifact>& artifacts, index::MetadataCost cost) {
  std::vector<std::optional<core::Expected<index::CoreMetadata, std::string>>> out;
  for (const index::Artifact& a : artifacts) {
    const auto it = files_.find(a.url);
    if (it == files_.end()) {
      out.emplace_back(core::unexpected("no file `" + a.url + "` was published"));
      continue;
    }
    const File& file = it->second;
    if (cost == index::MetadataCost::cheap_only && !file.cheap) {
      metadata_declined_.push_back(a.url);
      out.emplace_back(std::nullopt);
      continue;
    }
    metadata_read_.push_back(a.url);
    if (file.error) {
      out.emplace_back(core::unexpected(*file.error));
    } else {
      out.emplace_back(index::parse_core_metadata(file.metadata));
    }
  }
  return out;
}

std::vector<core::Expected<index::Artifact, std::string>> MemorySource::complete(
    std::vector<index::Artifact> artifacts) {
  std::vector<core::Expected<index::Artifact, std::string>> out;
  for (auto& a : artifacts) {
    if (a.sha256.empty()) a.sha256 = core::sha256_hex(a.filename);
    if (!a.size) a.size = a.filename.size();
    out.emplace_back(std::move(a));
  }
  return out;
}

}  // namespace bevenv::testing
