#pragma once
// The libsolv side of one solve: a pool filled from a Database and a Request, the job queue,
// and the tables that map libsolv ids back to bevenv's records and origins. The concerns it
// draws on have their own classes: which solvables answer to a name (ProviderIndex), the
// dependency relations and what satisfies them (DependencyKeys), pip's pre-release rule
// (PrereleasePolicy) and the version ladders of names with many versions (VersionLadders).
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"
#include "dependency_keys.hpp"
#include "prerelease_policy.hpp"
#include "provider_index.hpp"
#include "solv/ids.hpp"
#include "solv/jobs.hpp"
#include "solv/pool.hpp"
#include "solv/repo.hpp"
#include "version_ladders.hpp"

namespace bevenv::solver::detail {

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

struct UniverseOptions {
  // libsolv forbids two versions of one name with a rule per pair of versions, n(n-1)/2 of
  // them: 4 851 for 99 versions, millions in a large index, and sorting them dominates the
  // solve. Names with at least this many versions in the pool get a chain of n-1 auxiliary
  // solvables instead (3n rules, see VersionLadders). The curated matrix stays below it
  // (torch has the most records, 30), so its locks and explanations are libsolv's own.
  std::size_t ladder_min_versions = 40;
};

class Universe {
 public:
  Universe(const Database& database, const Request& request, const UniverseOptions& options = {});
  Universe(const Universe&) = delete;
  Universe& operator=(const Universe&) = delete;

  solv::PackagePool& pool() { return pool_; }
  const solv::PackagePool& pool() const { return pool_; }
  solv::JobQueue& jobs() { return jobs_; }
  const Database& database() const { return database_; }
  const Request& request() const { return request_; }
  const ProviderIndex& providers() const { return providers_; }
  const DependencyKeys& keys() const { return keys_; }
  const VersionLadders& ladders() const { return ladders_; }

  RecordId record_of(SolvableId solvable) const { return record_of_solvable_.at(solvable.index()); }
  bool is_record(SolvableId solvable) const;
  const JobInfo* job_info(JobId job) const;
  // The dependency of a root requirement's job.
  DepId root_dep(std::size_t requirement) const { return root_deps_.at(requirement); }

  // The relation requirement `index` of record `id` (in the pool) is (or, for a system record,
  // would be).
  DepId requirement_dep(RecordId id, std::size_t index) const;
  // The requirement of `solvable`'s record that became `dep`.
  const Dependency* requirement_of(SolvableId solvable, DepId dep) const;
  // Origins of the conflicts of `solvable` that became `dep` (declared and imposed).
  std::vector<std::string> conflict_origins(SolvableId solvable, DepId dep) const;
  std::vector<SolvableId> candidates(DepId dep) const { return pool_.whatprovides(dep); }
  std::string version_text(SolvableId solvable) const;

  // Jobs for the request's preferences from `first` on, once they have been appended to it (a
  // Session's later solves): they go last, where a fresh Universe puts them too.
  void add_preference_jobs(std::size_t first);

 private:
  // Filling the pool (universe.cpp).
  std::vector<bool> reachable_records() const;
  void add_records();
  std::vector<SolvableId> allocate_solvables(const std::vector<bool>& included,
                                             solv::Repo& available, solv::Repo& system);
  std::unordered_map<std::string, std::vector<Provider>> add_names(
      const std::vector<bool>& included, solv::Repo& available, solv::Repo& system);
  void add_dependencies(const std::vector<bool>& included, solv::Repo& available);
  bool system_shares_names() const;
  void add_imposed_conflicts();
  void add_system_requirement_deps();
  // The job queue (universe_jobs.cpp).
  void add_jobs();
  void add_dep_job(solv::JobAction action, DepId dep, JobKind kind, std::size_t index);
  void add_record_jobs();
  void add_prerelease_job();

  const Database& database_;
  const Request& request_;
  UniverseOptions options_;
  solv::PackagePool pool_;
  solv::JobQueue jobs_;
  ProviderIndex providers_;
  DependencyKeys keys_{pool_, providers_};
  PrereleasePolicy prereleases_{request_};
  VersionLadders ladders_;
  std::vector<RecordId> record_of_solvable_;  // by solvable id; SIZE_MAX for libsolv's own
  std::vector<SolvableId> solvable_of_record_;
  std::vector<JobInfo> job_infos_;  // by job position
  std::vector<DepId> root_deps_;    // by root requirement
  // By record: the relation each of its requirements became (same order as the record's).
  std::vector<std::vector<DepId>> requirement_deps_;
  std::unordered_multimap<ConflictSite, std::string, ConflictSite::Hash> conflict_origin_;
  bool system_is_installed_ = false;  // see add_records()
};

}  // namespace bevenv::solver::detail
