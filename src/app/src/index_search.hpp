#pragma once
// The index stage of `bevenv lock` as one object with named state: what is wanted of each
// package, the packages still to visit, the candidates and what was read of them, the curated
// records still to complete, and the releases skipped. Metadata is read lazily: a candidate is
// read when a solve chooses it, so a lock reads a few files per package instead of every
// release a specifier allows (uv and pip read on demand too). It reads through index::PackageSource
// alone, so tests drive it with an in-memory source instead of a server.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bevenv/core/marker.hpp"
#include "bevenv/core/requirement.hpp"
#include "bevenv/index/package_source.hpp"
#include "bevenv/index/wheel.hpp"
#include "bevenv/solver/solution.hpp"
#include "index_session.hpp"
#include "lock_inputs.hpp"
#include "lock_translate.hpp"

namespace bevenv::app {

class IndexSearch {
 public:
  // `session` and `translation` must outlive the search; `session.source` is what it reads.
  IndexSearch(IndexSession& session, const LockInputs& inputs, Translation& translation);

  // Eager: reads breadth first until every requirement of every candidate has records: each
  // round lists the packages asked for, reads the metadata of their new candidates in one
  // batch, and asks for what those need (`--read-all-metadata`, and the tests of the search).
  void run();

  // Lazy: lists breadth first until every requirement known so far has candidates. A candidate
  // whose metadata is not read enters the database as a record without requirements; it is
  // read when a solve chooses it (read_chosen). Curated records are there from the start.
  void discover();

  // Reads, breadth first and without solving, the newest candidate of each package none of
  // whose candidates is read: what a solve most often chooses, so that the first solve sees
  // most of the graph instead of one level of it per solve.
  void read_newest();

  // Reads the metadata of the chosen records read by nobody yet and completes the chosen
  // curated records whose list is not complete, in one batch; what they need goes to their
  // records and is discovered. True when anything was read (solve again), false when the
  // solution stands on metadata alone.
  bool read_chosen(const solver::Solution& solution);

  // Reads every candidate not read yet, and whatever they lead to: an unsolvable request is
  // explained from everything the sources say. True when anything was read.
  bool read_all();

  // Hands the releases skipped over to the session.
  void finish();

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
    // What the candidates admitted so far were chosen from: while the root specifiers and the
    // pre-release rule stay, only dependents' specifiers added since can admit more.
    bool admitted = false;
    std::size_t admitted_roots = 0;
    std::size_t admitted_specifiers = 0;
    bool admitted_prereleases = false;
  };
  // A release of an uncurated package with the file that fits the target; newest first.
  using Release = std::pair<core::Version, const index::Artifact*>;
  // An uncurated release the specifiers allow: a record from the moment it is one, its
  // metadata once read.
  struct Candidate {
    solver::RecordId record = 0;
    matrix::PackageVersion* build = nullptr;  // in the session's `fetched`
    index::Artifact artifact;
    std::optional<index::CoreMetadata> metadata;
    bool skipped = false;            // its archive cannot say what it needs
    std::set<std::string> required;  // requirement texts given to the record so far
    bool unread() const { return !metadata && !skipped; }
  };
  using CandidateKey = std::pair<std::string, core::Version>;
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
  void run_round(bool read_candidates);
  std::vector<std::string> visit(const std::set<std::string>& round);
  bool admitted_by_request(const solver::PackageRecord& record) const;
  bool asked_by_request(const std::string& name) const;
  void admit(const std::vector<std::string>& listed, std::vector<CandidateKey>& admitted);
  std::set<std::size_t> newly_allowed(const std::vector<Release>& releases, Wanted& w);
  void admit_release(const std::string& name, const Release& release);
  void leave_to_curated(const std::string& name, std::vector<Release>& releases);
  void read(const std::vector<CandidateKey>& keys, std::vector<CompletionTarget> targets);
  std::vector<Completion> plan_completions(std::vector<CompletionTarget> targets);
  void complete_curated(const std::vector<Completion>& completions, MetadataReads& reads);
  void keep_read(Candidate& candidate, const CandidateKey& key,
                 core::Expected<index::CoreMetadata, std::string> read);
  void expand(const std::string& name, Candidate& candidate);
  std::vector<core::Requirement> applicable(const index::CoreMetadata& metadata,
                                            const std::string& name);
  std::vector<CandidateKey> unread() const;
  std::vector<CompletionTarget> take_incomplete();
  std::vector<CandidateKey> contested(const solver::Solution& solution);

  IndexSession& session_;
  index::PackageSource& source_;
  const LockInputs& inputs_;
  Translation& translation_;
  core::MarkerEnvironment env_;
  index::TagRanking ranking_;
  bool started_ = false;

  std::map<std::string, Wanted> wanted_;  // by normalized name
  std::set<std::string> frontier_;        // packages whose candidates or extras may have changed
  std::map<std::string, std::vector<Release>> releases_;  // per uncurated package, once
  std::map<std::string, std::map<core::Version, Candidate>> candidates_;  // uncurated
  std::map<solver::RecordId, CandidateKey> candidate_of_;
  std::map<std::string, core::Version> last_chosen_;  // by the last solve, per uncurated package
  static constexpr int kContestedRounds = 3;  // solves whose choices moved, before read_all()
  int contested_rounds_ = 0;
  std::set<std::string> visited_curated_;                    // their records asked for once
  std::map<solver::RecordId, CompletionTarget> incomplete_;  // curated, not completed yet
  std::vector<std::string> skipped_;  // `NAME VERSION`: why its metadata says nothing
  std::set<std::string> unlisted_;    // packages no source lists (IndexSession::unlisted)
};

}  // namespace bevenv::app
