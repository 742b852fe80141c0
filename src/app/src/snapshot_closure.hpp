#pragma once
// The closure `bevenv matrix snapshot` reads: breadth first over names, from the roots, every
// release a specifier seen for the name allows (the newest few per specifier) that has a file
// for one of the targets, with the requirements whose markers can hold on one of them.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bevenv/core/marker.hpp"
#include "bevenv/core/requirement.hpp"
#include "bevenv/index/client.hpp"
#include "bevenv/index/wheel.hpp"
#include "bevenv/matrix/model.hpp"

namespace bevenv::app {

// One interpreter and machine the snapshot serves.
struct SnapshotTarget {
  core::Version python;  // full version, as a lock for `3.8` uses
  std::string platform;  // `linux_x86_64`
  core::MarkerEnvironment env;
  index::TagRanking ranking;
};

struct SnapshotRecord {
  std::string name;  // normalized
  core::Version version;
  core::SpecifierSet python;                 // Requires-Python
  std::vector<core::Requirement> requires_;  // those that can apply on a target
  std::vector<index::Artifact> artifacts;    // every file for a target, by filename
  bool from_wheel = true;  // false: read from an sdist's PKG-INFO, which may omit requirements
  // The sdist of a curated source build (`build_step.sdist`), under the curated version: files
  // only, whose requirements are the curated record's.
  bool source_build = false;
};

struct SnapshotResult {
  std::vector<SnapshotRecord> records;  // by name, then PEP 440 version
  std::vector<std::string> skipped;     // names left to the curated matrix (other sources)
  std::vector<std::string> problems;    // releases whose metadata could not be read
};

class SnapshotClosure {
 public:
  SnapshotClosure(index::IndexClient& client, const matrix::Matrix& matrix,
                  std::vector<SnapshotTarget> targets, std::size_t max_versions);

  void ask(const core::Requirement& requirement, const std::string& asked_by);
  // A root: every release its specifier allows is read, not only the newest few.
  void ask_root(const core::Requirement& requirement, const std::string& asked_by);
  // The PyPI sdist a curated source build compiles (`mmcv-full 1.7.2+source` builds
  // `mmcv-full-1.7.2.tar.gz`): read by the record's public version, written under its own.
  void ask_source_sdist(const matrix::PackageVersion& curated);
  // Reads until no new release is asked for. Throws core::Error (failure) when a source
  // cannot be read or lists no file of an asked name.
  SnapshotResult run();

 private:
  struct Wanted {
    std::map<std::string, core::SpecifierSet> specifiers;  // by canonical text
    std::set<std::string> root_specifiers;                 // texts a root asked for
    std::set<std::string> extras;
    std::size_t extras_expanded = 0;
    std::string asked_by;  // the first asker, for messages
  };
  struct Read {
    index::CoreMetadata metadata;
    bool from_wheel = true;
  };
  using Files = std::map<core::Version, std::vector<index::Artifact>>;

  void ask(const std::string& name, const core::SpecifierSet& specifier,
           const std::vector<std::string>& extras, const std::string& asked_by, bool root);
  bool served_elsewhere(const std::string& name) const;
  bool pins_curated_pypi_build(const std::string& name, const core::SpecifierSet& specifier) const;
  void follow_curated(const std::string& name);
  bool applies(const core::Requirement& r, const std::set<std::string>& extras) const;
  bool usable(const index::Artifact& a) const;
  bool usable_for(const std::vector<index::Artifact>& files, const core::Version& python) const;
  bool applies_on(const core::Requirement& r, const std::set<std::string>& extras,
                  const core::Version& python) const;
  bool installable_on(const std::string& name, const core::Version& version,
                      const core::Version& python) const;
  bool installable(const std::string& name, const core::Version& version) const;
  bool mark_dead_on(const core::Version& python);
  std::vector<core::Version> candidates(const std::string& name, const Files& files,
                                        const Wanted& wanted) const;
  bool mark_dead();
  const index::Artifact* to_read(const std::vector<index::Artifact>& files) const;
  void expand(const std::string& name, const index::CoreMetadata& metadata);
  void list(const std::vector<std::string>& names);
  void read_round(const std::set<std::string>& round);
  void read_source_sdists();
  void complete_artifacts();
  SnapshotResult result() const;
  void drop_unresolvable(SnapshotResult& out) const;

  index::IndexClient& client_;
  const matrix::Matrix& matrix_;
  std::vector<SnapshotTarget> targets_;
  std::size_t max_versions_;
  std::map<std::string, Wanted> wanted_;
  std::set<std::string> dirty_;
  std::map<std::string, Files> files_;  // usable files by name and version
  std::map<std::string, std::map<core::Version, Read>> read_;
  std::set<std::string> followed_;  // curated records followed, by id
  std::set<std::string> skipped_;
  std::vector<std::string> problems_;
  std::set<std::pair<std::string, core::Version>> unreadable_;  // read once, not again
  // (Python, name, version): not installable on that Python, a requirement of it matching no
  // release installable there.
  std::set<std::tuple<core::Version, std::string, core::Version>> dead_;
  std::set<core::Version> pythons_;  // of the targets
  // Curated source builds by (name, curated version): the public version whose sdist they build,
  // then the sdists read.
  using SourceBuild = std::pair<std::string, core::Version>;
  std::map<SourceBuild, core::Version> source_builds_;
  std::map<SourceBuild, std::vector<index::Artifact>> source_sdists_;
};

}  // namespace bevenv::app
