#pragma once
// Reads projects from several sources at once: what versions exist, their core metadata, and
// their artifacts' sha256 and size.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/index/metadata.hpp"
#include "bevenv/index/package_source.hpp"
#include "bevenv/index/project.hpp"
#include "bevenv/index/settings.hpp"
#include "bevenv/index/transport.hpp"

namespace bevenv::index {

namespace local {
class LocalFiles;
}  // namespace local
namespace metadata_form {
class Reader;
}  // namespace metadata_form

// How metadata() read what it read, for `-v` and tests.
struct MetadataStats {
  std::size_t by_range = 0;         // wheels whose METADATA came from byte ranges
  std::uint64_t range_bytes = 0;    // bytes those ranges received
  std::size_t streamed = 0;         // sdists whose PKG-INFO came from a stopped stream
  std::uint64_t stream_bytes = 0;   // bytes those streams received
  std::size_t whole_downloads = 0;  // archives downloaded whole to read their metadata
  std::set<std::string> no_ranges;  // hosts that answered a range request with the whole file
};

// The package source of a real lock: indexes and find-links pages over HTTP, local files and
// directories, through the download cache.
class IndexClient final : public PackageSource {
 public:
  explicit IndexClient(IndexSettings settings, Reporter* reporter = nullptr);
  ~IndexClient() override;
  IndexClient(const IndexClient&) = delete;
  IndexClient& operator=(const IndexClient&) = delete;

  const IndexSettings& settings() const { return settings_; }
  const std::vector<Source>& sources() const override { return sources_; }
  Transport& transport() { return transport_; }

  // Lists projects (normalized names) in parallel. A name in `only` is looked up in those
  // sources alone (a curated pin); other names in the first source, in priority order, that
  // lists them. A source that cannot be read is an error for the names it would decide, never
  // a reason to fall through to a later source.
  std::map<std::string, core::Expected<Listing, std::string>> list(
      const std::vector<std::string>& names,
      const std::map<std::string, std::vector<Source>>& only = {}) override;

  // Core metadata of each artifact: the PEP 658 file where the source publishes one, else the
  // METADATA inside a remote wheel read by byte ranges, or a remote sdist's PKG-INFO read from
  // a transfer stopped once it has arrived (both kept in the cache by the archive's sha256),
  // else the archive downloaded into the cache (hash-checked) and read. Local files are opened
  // once: their metadata is kept in the cache by size and mtime. With `cheap_only`, an artifact
  // that would need a whole download (not cached) gets nullopt instead.
  std::vector<std::optional<core::Expected<CoreMetadata, std::string>>> metadata(
      const std::vector<Artifact>& artifacts, MetadataCost cost) override;
  std::vector<core::Expected<CoreMetadata, std::string>> metadata(
      const std::vector<Artifact>& artifacts);
  const MetadataStats& metadata_stats() const { return stats_; }

  // Fills sha256 and size where the source left them out: local files are read, remote files
  // without a hash are downloaded, sizes of hashed remote files come from the cache or HEAD.
  std::vector<core::Expected<Artifact, std::string>> complete(
      std::vector<Artifact> artifacts) override;

 private:
  using MetadataSlots = std::vector<std::optional<core::Expected<CoreMetadata, std::string>>>;
  struct MetadataPlan;  // defined in client.cpp

  void load_find_links(const std::vector<Source>& wanted);
  core::Expected<std::vector<Artifact>, std::string> from_find_links(const Source& source,
                                                                     const std::string& name);
  std::optional<CoreMetadata> kept_archive_metadata(const std::filesystem::path& root,
                                                    const Artifact& artifact);
  MetadataPlan plan_metadata(const std::vector<Artifact>& artifacts, MetadataCost cost,
                             MetadataSlots& out);
  void plan_whole(const Artifact& artifact, std::size_t i, MetadataCost cost, MetadataPlan& plan);
  void read_by_ranges(const std::vector<Artifact>& artifacts, MetadataCost cost, MetadataPlan& plan,
                      MetadataSlots& out);
  void read_streamed(const std::vector<Artifact>& artifacts, const MetadataPlan& plan,
                     MetadataSlots& out);
  void read_whole(const std::vector<Artifact>& artifacts, const MetadataPlan& plan,
                  MetadataSlots& out);

  IndexSettings settings_;
  std::vector<Source> sources_;
  Transport transport_;
  // Find-links pages and directories, read once: location -> name -> artifacts.
  std::map<std::string, core::Expected<std::map<std::string, std::vector<Artifact>>, std::string>>
      link_pages_;
  std::unique_ptr<local::LocalFiles> local_;      // local files' stamps and cached facts
  std::unique_ptr<metadata_form::Reader> forms_;  // cached metadata read back
  MetadataStats stats_;
};

// `file:///a/b.whl` -> `/a/b.whl`; empty for other URLs.
std::string local_path_of(const std::string& url);

}  // namespace bevenv::index
