#pragma once
// What a lock asks of package sources, as an interface: IndexClient answers it from the network,
// the cache and local files; tests answer it from memory, so the lock's index search can be
// exercised without a server.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/index/metadata.hpp"
#include "bevenv/index/project.hpp"
#include "bevenv/index/settings.hpp"

namespace bevenv::index {

// Whether metadata() may download a whole archive to read its metadata.
enum class MetadataCost { any, cheap_only };

struct Listing {
  std::string name;              // normalized
  std::optional<Source> source;  // the source that lists it; nullopt when none does
  std::vector<Artifact> artifacts;
};

// Whether an error metadata() gave makes its one release no candidate rather than the lock fail:
// an archive that cannot say what it needs (no PKG-INFO), or metadata of another release (PyPI
// serves `tabulate-0.7.6b-py2.py3-none-any.whl`, whose METADATA says 0.7.6). pip and uv pass over
// such releases too. A source phrases these two errors as IndexClient does.
bool unusable_release(std::string_view error);

class PackageSource {
 public:
  virtual ~PackageSource() = default;

  // The sources in priority order (IndexSettings::sources()).
  virtual const std::vector<Source>& sources() const = 0;

  // Lists projects (normalized names). A name in `only` is looked up in those sources alone (a
  // curated pin); other names in the first source, in priority order, that lists them. A source
  // that cannot be read is an error (naming the source) for the names it would decide, never a
  // reason to fall through to a later source. A name no source lists gets a Listing without a
  // source.
  virtual std::map<std::string, core::Expected<Listing, std::string>> list(
      const std::vector<std::string>& names,
      const std::map<std::string, std::vector<Source>>& only = {}) = 0;

  // Core metadata of each artifact, in the same order. With `cheap_only`, an artifact whose
  // metadata would cost a whole download gets nullopt; with `any`, every slot has a value.
  virtual std::vector<std::optional<core::Expected<CoreMetadata, std::string>>> metadata(
      const std::vector<Artifact>& artifacts, MetadataCost cost) = 0;

  // Each artifact with sha256 and size filled in where the source left them out.
  virtual std::vector<core::Expected<Artifact, std::string>> complete(
      std::vector<Artifact> artifacts) = 0;

 protected:
  PackageSource() = default;
  PackageSource(const PackageSource&) = default;
  PackageSource& operator=(const PackageSource&) = default;
};

}  // namespace bevenv::index
