#pragma once
// The libsolv side of one solve: a pool filled from a Database and a Request, the job queue,
// and the side tables that map libsolv ids back to bevenv's records and origins.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"
#include "solv/pool.hpp"
#include "solv/queue.hpp"

namespace bevenv::solver::detail {

// A dependency as libsolv sees it: one namespace relation per distinct (name, specifier,
// policy); bevenv answers which solvables satisfy it.
struct DepKey {
  std::string name;
  core::SpecifierSet specifier;
  bool prerelease_policy = true;  // false: plain PEP 440 membership (conflicts, forbids)
  std::string display;            // `name specifier`
};

enum class JobKind : unsigned char { requirement, forbid, lock, preference };

struct JobInfo {
  JobKind kind = JobKind::requirement;
  std::size_t index = 0;  // into Request::requirements / Request::conflicts / records
  Id dep = 0;             // the dependency the job selects by, when it has one
};

struct Provider {
  Id solvable = 0;
  core::Version version;
};

class Universe {
 public:
  Universe(const Database& database, const Request& request);
  Universe(const Universe&) = delete;
  Universe& operator=(const Universe&) = delete;

  solv::Pool& pool() { return pool_; }
  solv::Queue& jobs() { return jobs_; }
  const Database& database() const { return database_; }
  const Request& request() const { return request_; }

  RecordId record_of(Id solvable) const {
    return record_of_solvable_.at(static_cast<std::size_t>(solvable));
  }
  bool is_record(Id solvable) const;
  const DepKey& key_of(Id dep) const;
  bool is_known_dep(Id dep) const { return key_of_dep_.count(dep) != 0; }
  const JobInfo* job_info(Id job_index) const;
  // The dependency of a root requirement's job.
  Id root_dep(std::size_t requirement) const { return root_deps_.at(requirement); }

  // The requirement of `solvable`'s record that became `dep`.
  const Dependency* requirement_of(Id solvable, Id dep) const;
  // Origins of the conflicts of `solvable` that became `dep` (declared and imposed).
  std::vector<std::string> conflict_origins(Id solvable, Id dep) const;
  // Every solvable answering to `name`, with the version it provides it at.
  const std::vector<Provider>& providers(const std::string& name) const;
  std::vector<Id> candidates(Id dep) { return pool_.whatprovides(dep); }

  Id dep_of(const Dependency& dependency, bool prerelease_policy);
  std::string version_text(Id solvable) const;

 private:
  std::vector<bool> reachable_records() const;
  void add_records();
  void add_imposed_conflicts();
  void add_jobs();
  void enable_prereleases();
  void enable_prereleases_for(const std::string& name, const core::SpecifierSet& specifier);
  std::vector<Id> resolve(Id argument) const;
  bool prereleases_allowed(const std::string& name) const;

  const Database& database_;
  const Request& request_;
  solv::Pool pool_;
  solv::Queue jobs_;
  std::vector<RecordId> record_of_solvable_;  // by solvable id; SIZE_MAX for libsolv's own
  std::vector<Id> solvable_of_record_;
  std::unordered_map<std::string, std::vector<Provider>> providers_;
  std::vector<DepKey> keys_;
  std::unordered_map<Id, std::size_t> key_of_argument_;
  std::unordered_map<Id, std::size_t> key_of_dep_;
  std::vector<JobInfo> job_infos_;  // by job index / 2
  std::vector<Id> root_deps_;       // by root requirement
  // Pre-release solvables some requirement admits (see enable_prereleases()).
  std::unordered_set<Id> enabled_prereleases_;
  // By record: the relation each of its requirements became (same order as the record's).
  std::vector<std::vector<Id>> requirement_deps_;
  std::unordered_multimap<std::uint64_t, std::string> conflict_origin_;
};

}  // namespace bevenv::solver::detail
