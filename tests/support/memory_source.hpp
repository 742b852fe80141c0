#pragma once
// An index::PackageSource held in memory: listings and METADATA are given as data and every read
// is recorded, so the lock's index search can be tested without a server, and a test can tell
// which metadata was read (laziness) and which was left alone.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/index/package_source.hpp"

namespace bevenv::testing {

class MemorySource final : public index::PackageSource {
 public:
  // `sources` in priority order, as IndexSettings::sources() gives them.
  explicit MemorySource(std::vector<index::Source> sources);

  // Publishes `filename` (a wheel or sdist name) on `source`, with `metadata` as its METADATA
  // text. `cheap`: whether reading it costs less than a whole download.
  MemorySource& publish(const index::Source& source, const std::string& filename,
                        std::string metadata, bool cheap = true);
  // Every listing `source` would decide fails with `error`.
  void break_source(const index::Source& source, std::string error);
  // Reading the metadata of `filename` (on every source that publishes it) fails with `error`.
  void break_metadata(const std::string& filename, std::string error);

  // METADATA text with the fields resolution needs.
  static std::string metadata_text(const std::string& name, const std::string& version,
                                   const std::vector<std::string>& requires_dist = {},
                                   const std::string& requires_python = "");

  // URLs of the files whose metadata was read, in order (a `cheap_only` read declined is not
  // one). A file's URL is its source's location, `/`, and its name.
  const std::vector<std::string>& metadata_read() const { return metadata_read_; }
  // URLs of the files a `cheap_only` read declined because they are not cheap.
  const std::vector<std::string>& metadata_declined() const { return metadata_declined_; }
  // Names listed, in the order asked.
  const std::vector<std::string>& listed() const { return listed_; }

  const std::vector<index::Source>& sources() const override { return sources_; }
  std::map<std::string, core::Expected<index::Listing, std::string>> list(
      const std::vector<std::string>& names,
      const std::map<std::string, std::vector<index::Source>>& only = {}) override;
  std::vector<std::optional<core::Expected<index::CoreMetadata, std::string>>> metadata(
      const std::vector<index::Artifact>& artifacts, index::MetadataCost cost) override;
  std::vector<core::Expected<index::Artifact, std::string>> complete(
      std::vector<index::Artifact> artifacts) override;

 private:
  struct File {
    index::Artifact artifact;
    std::string metadata;
    bool cheap = true;
    std::optional<std::string> error;
  };

  core::Expected<index::Listing, std::string> list_one(const std::string& name,
                                                       const std::vector<index::Source>& sources);

  std::vector<index::Source> sources_;
  std::map<std::string, File> files_;  // by URL: two sources may serve one file name
  // Source location -> project name -> URLs.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> published_;
  std::map<std::string, std::string> broken_sources_;  // location -> error
  std::vector<std::string> metadata_read_, metadata_declined_, listed_;
};

}  // namespace bevenv::testing
