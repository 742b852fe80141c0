#pragma once
// The libsolv side of one solve: a pool filled from a Database and a Request, the job queue,
// and the side tables that map libsolv ids back to bevenv's records and origins.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"
#include "solv/ids.hpp"
#include "solv/jobs.hpp"
#include "solv/pool.hpp"

namespace bevenv::solver::detail {

struct NameProviders;

// A dependency as libsolv sees it: one namespace relation per distinct (name, specifier,
// policy); bevenv answers which solvables satisfy it.
struct DepKey {
  std::string name;
  const core::SpecifierSet* specifier = nullptr;  // the Database's, the Request's or owned
  const NameProviders* providers = nullptr;       // of `name`; null when nothing answers
  bool prerelease_policy = true;  // false: plain PEP 440 membership (conflicts, forbids)
  std::string display;            // `name specifier`
  // The `>=`/`<=` specifiers bound the candidates to providers->by_version[begin, end), found
  // when the key is made (its versions are then in cache); `bounded` says whether all of the
  // specifiers are such bounds, leaving nothing else to check.
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  bool bounded = false;
};

// A conflict as libsolv records it: the solvable that conflicts and the dependency.
struct ConflictSite {
  SolvableId solvable;
  DepId dep;
  bool operator==(const ConflictSite&) const = default;
  struct Hash {
    std::size_t operator()(const ConflictSite& site) const {
      return std::hash<SolvableId>{}(site.solvable) * 31 + std::hash<DepId>{}(site.dep);
    }
  };
};

enum class JobKind : unsigned char { requirement, forbid, lock, preference };

struct JobInfo {
  JobKind kind = JobKind::requirement;
  std::size_t index = 0;  // into Request::requirements / Request::conflicts / records
  DepId dep;              // the dependency the job selects by, when it has one
};

struct Provider {
  SolvableId solvable;
  const core::Version* version = nullptr;  // the Database's
};

// Every solvable answering to a name, and the same in PEP 440 order (indexes into `list`).
struct NameProviders {
  std::vector<Provider> list;
  std::vector<std::uint32_t> by_version;
  bool any_prerelease = false;
};

struct UniverseOptions {
  // libsolv forbids two versions of one name with a rule per pair of versions, n(n-1)/2 of
  // them: 4 851 for 99 versions, millions in a large index, and sorting them dominates the
  // solve. Names with at least this many versions in the pool get a chain of n-1 auxiliary
  // solvables instead (3n rules, see add_version_ladders()). The curated matrix stays below
  // it (torch has the most records, 30), so its locks and explanations are libsolv's own.
  std::size_t ladder_min_versions = 40;
};

// One auxiliary solvable of a name's version ladder: rung k stands for "a version at
// position <= k is installed" (positions count the name's versions, oldest first).
struct Rung {
  std::size_t ladder = 0;
  std::size_t position = 0;
};

class Universe {
 public:
  Universe(const Database& database, const Request& request, const UniverseOptions& options = {});
  Universe(const Universe&) = delete;
  Universe& operator=(const Universe&) = delete;

  solv::PackagePool& pool() { return pool_; }
  solv::JobQueue& jobs() { return jobs_; }
  const Database& database() const { return database_; }
  const Request& request() const { return request_; }

  RecordId record_of(SolvableId solvable) const { return record_of_solvable_.at(solvable.index()); }
  bool is_record(SolvableId solvable) const;
  // The rung `solvable` is, when it is a ladder's auxiliary solvable (never in a result).
  const Rung* rung(SolvableId solvable) const;
  // The place of a laddered version on its name's ladder, else null.
  const Rung* version_rung(SolvableId solvable) const;
  // Whether `dep` is the dependency of a version on its own rung.
  bool is_rung_dep(DepId dep) const;
  // Whether installing `version` installs `aux` through its ladder (same name, `version` at
  // or below the rung), so that a conflict with `aux` is one with `version`.
  bool climbs_to(SolvableId version, SolvableId aux) const;
  const DepKey& key_of(DepId dep) const;
  bool is_known_dep(DepId dep) const { return key_index(dep) != no_key; }
  const JobInfo* job_info(JobId job) const;
  // The dependency of a root requirement's job.
  DepId root_dep(std::size_t requirement) const { return root_deps_.at(requirement); }

  // The relation requirement `index` of record `id` is (or, for a system record, would be).
  DepId requirement_dep(RecordId id, std::size_t index);
  // The requirement of `solvable`'s record that became `dep`.
  const Dependency* requirement_of(SolvableId solvable, DepId dep) const;
  // Origins of the conflicts of `solvable` that became `dep` (declared and imposed).
  std::vector<std::string> conflict_origins(SolvableId solvable, DepId dep) const;
  // Every solvable answering to `name`, with the version it provides it at.
  const std::vector<Provider>& providers(const std::string& name) const;
  std::vector<SolvableId> candidates(DepId dep) const { return pool_.whatprovides(dep); }

  // Jobs for the request's preferences from `first` on, once they have been appended to it (a
  // Session's later solves): they go last, where a fresh Universe puts them too.
  void add_preference_jobs(std::size_t first);

  // `lasting`: `dependency` outlives the Universe (it is the Database's or the Request's), so
  // its specifier need not be copied.
  DepId dep_of(const Dependency& dependency, bool prerelease_policy, bool lasting = false);
  std::string version_text(SolvableId solvable) const;

 private:
  std::vector<bool> reachable_records() const;
  void add_records();
  std::vector<SolvableId> allocate_solvables(const std::vector<bool>& included,
                                             solv::Repo& available, solv::Repo& system);
  std::unordered_map<std::string, std::vector<Provider>> add_names(
      const std::vector<bool>& included, solv::Repo& available, solv::Repo& system);
  void add_dependencies(const std::vector<bool>& included, solv::Repo& available);
  bool system_shares_names() const;
  void add_version_ladders(solv::Repo& repo,
                           std::unordered_map<std::string, std::vector<Provider>>& by_name);
  void add_imposed_conflicts();
  void add_jobs();
  void enable_prereleases();
  void enable_prereleases_for(const std::string& name, const NameProviders* candidates,
                              const core::SpecifierSet& specifier);
  static constexpr std::uint32_t no_key = 0xffffffffu;
  std::uint32_t key_index(DepId dep) const;
  void index_providers();
  static void bound_candidates(DepKey& key);
  std::vector<SolvableId> resolve(StringId argument) const;
  bool prereleases_allowed(const std::string& name) const;

  const Database& database_;
  const Request& request_;
  UniverseOptions options_;
  solv::PackagePool pool_;
  solv::JobQueue jobs_;
  std::vector<RecordId> record_of_solvable_;  // by solvable id; SIZE_MAX for libsolv's own
  std::vector<SolvableId> solvable_of_record_;
  std::unordered_map<std::string, NameProviders> providers_;
  std::vector<DepKey> keys_;
  std::deque<core::SpecifierSet> owned_specifiers_;  // of keys made from temporaries
  std::vector<std::uint32_t> key_of_argument_;       // by the argument's string id
  std::vector<JobInfo> job_infos_;                   // by job index / 2
  std::vector<DepId> root_deps_;                     // by root requirement
  // Pre-release solvables some requirement admits (see enable_prereleases()).
  std::unordered_set<SolvableId> enabled_prereleases_;
  // By record: the relation each of its requirements became (same order as the record's).
  std::vector<std::vector<DepId>> requirement_deps_;
  std::unordered_multimap<ConflictSite, std::string, ConflictSite::Hash> conflict_origin_;
  // Version ladders: the laddered versions (marked multiversion, so libsolv writes no pairwise
  // rules for them), each version's rung position, and the rungs by auxiliary solvable.
  std::vector<SolvableId> laddered_;
  bool system_is_installed_ = false;  // see add_records()
  // By solvable id; `ladder` is no_ladder where the solvable has no rung.
  static constexpr std::size_t no_ladder = static_cast<std::size_t>(-1);
  std::vector<Rung> rung_of_version_;
  std::vector<Rung> rung_of_aux_;
  std::vector<bool> is_rung_name_;  // by string id
};

}  // namespace bevenv::solver::detail
