#pragma once
// The index stage of `bevenv lock` as one object with named state: what is wanted of each
// package, the packages still to visit, the releases read, the requirements curated records gain
// from their metadata, and the releases skipped. It reads through index::PackageSource alone, so
// tests drive it with an in-memory source instead of a server.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bevenv/core/marker.hpp"
#include "bevenv/core/requirement.hpp"
#include "bevenv/index/package_source.hpp"
#include "bevenv/index/wheel.hpp"
#include "index_session.hpp"
#include "lock_inputs.hpp"
#include "lock_translate.hpp"

namespace bevenv::app {

class IndexSearch {
 public:
  // `session` and `translation` must outlive the search; `session.source` is what it reads.
  IndexSearch(IndexSession& session, const LockInputs& inputs, Translation& translation);

  // Reads breadth first until every requirement of every record has records: each round lists
  // the packages asked for, reads the metadata of their new candidates in one batch, and asks
  // for what those need. Throws core::Error naming the source when one cannot be read.
  void run();

  // Hands the result over: a record per release read (owned by the session) and the requirements
  // curated records gained, to the translation; the releases skipped, to the session.
  void add_records();

  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  // What the lock asks of one package so far: root specifiers (the request, the profile,
  // `--require`) and the specifiers of its dependents.
  struct Wanted {
    std::vector<core::SpecifierSet> root_specifiers;
    std::vector<core::SpecifierSet> specifiers;  // from dependents
    std::set<std::string> root_texts, texts;     // canonical texts of the two lists
    std::set<std::string> extras;
    bool prereleases = false;         // the request allows pre-releases of it
    std::size_t extras_expanded = 0;  // extras the releases read so far were expanded with
  };
  // A release of an uncurated package with the file that fits the target; newest first.
  using Release = std::pair<core::Version, const index::Artifact*>;
  // An uncurated release whose metadata this round reads.
  struct PendingRead {
    std::string name;
    core::Version version;
    index::Artifact artifact;
  };
  // What was read of one uncurated release.
  struct Read {
    index::Artifact artifact;
    index::CoreMetadata metadata;
    index::Source source;
  };
  // A curated record whose requirement list is not complete.
  struct CompletionTarget {
    std::string name;
    solver::RecordId record = 0;
    const matrix::PackageVersion* build = nullptr;
  };
  // Such a record with the wheel of its version whose metadata completes it.
  struct Completion {
    std::string name;
    solver::RecordId record = 0;
    index::Artifact artifact;
  };
  using MetadataReads =
      std::vector<std::optional<core::Expected<index::CoreMetadata, std::string>>>;

  void ask(const std::string& name, const core::SpecifierSet& specifier,
           const std::vector<std::string>& extras, bool root);
  void ask_for_roots();
  void run_round();
  std::vector<std::string> visit(const std::set<std::string>& round);
  std::vector<Completion> plan_completions();
  std::vector<PendingRead> plan_reads(const std::vector<std::string>& uncurated,
                                      std::vector<std::string>& reexpand);
  void complete_curated(const std::vector<Completion>& completions, MetadataReads& reads);
  void keep_reads(std::vector<PendingRead>& pending, MetadataReads& reads);
  void expand(const std::string& name, const Read& read);
  std::vector<core::Requirement> applicable(const index::CoreMetadata& metadata,
                                            const std::string& name);
  void add_record(const std::string& name, const core::Version& version, const Read& read);

  IndexSession& session_;
  index::PackageSource& source_;
  const LockInputs& inputs_;
  Translation& translation_;
  core::MarkerEnvironment env_;
  index::TagRanking ranking_;

  std::map<std::string, Wanted> wanted_;  // by normalized name
  std::set<std::string> frontier_;        // packages whose candidates or extras may have changed
  std::map<std::string, std::vector<Release>> releases_;       // per uncurated package, once
  std::map<std::string, std::map<core::Version, Read>> read_;  // uncurated releases read
  std::set<std::string> visited_curated_;                      // their records asked for once
  std::vector<CompletionTarget> to_complete_;                  // found this round
  std::map<solver::RecordId, std::vector<solver::Dependency>> gained_;  // by curated records
  std::vector<std::string> skipped_;  // `NAME VERSION`: why its metadata says nothing
};

}  // namespace bevenv::app
