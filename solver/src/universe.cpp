// Filling a Universe's pool: the records a request can reach, their solvables, names,
// dependencies and conflicts; and the lookups from libsolv's ids back to records.
#include "universe.hpp"

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "alike_versions.hpp"
#include "bevenv/core/name.hpp"
#include "evr.hpp"
#include "solv/repo.hpp"

namespace bevenv::solver::detail {
namespace {

constexpr RecordId no_record = std::numeric_limits<RecordId>::max();

}  // namespace

Universe::Universe(const Database& database, const Request& request, const UniverseOptions& options)
    : database_(database), request_(request), options_(options) {
  pool_.set_namespace_resolver(
      [this](StringId argument) { return keys_.resolve(argument, prereleases_); });
  add_records();
  add_imposed_conflicts();
  for (const Dependency& root : request_.requirements) {
    root_deps_.push_back(keys_.dep_of(root, true, true));
  }
  prereleases_.admit(keys_.all(), providers_, database_, solvable_of_record_);
  pool_.create_whatprovides();
  add_jobs();
  add_system_requirement_deps();
}

// Only records the request can reach (by name, through requirements and provides) and the
// system's own go into the pool: an index may hold far more than one request touches.
std::vector<bool> Universe::reachable_records() const {
  const auto& records = database_.records();
  std::unordered_map<std::string, std::vector<RecordId>> providing;
  for (RecordId id = 0; id < records.size(); ++id) {
    for (const Provide& provide : records[id].provides) providing[provide.name].push_back(id);
  }
  std::vector<bool> included(records.size(), false);
  std::unordered_set<std::string> seen;
  std::vector<std::string> pending;
  auto want = [&](const std::string& name) {
    if (seen.insert(name).second) pending.push_back(name);
  };
  auto include = [&](RecordId id) {
    if (included[id]) return;
    included[id] = true;
    if (records[id].kind == RecordKind::system) return;  // see add_records
    for (const Dependency& requirement : records[id].requirements) want(requirement.name);
  };
  for (const Dependency& root : request_.requirements) want(normalize_package_name(root.name));
  for (RecordId id = 0; id < records.size(); ++id) {
    if (records[id].kind == RecordKind::system) include(id);
  }
  while (!pending.empty()) {
    const std::string name = std::move(pending.back());
    pending.pop_back();
    for (RecordId id : database_.find(name)) include(id);
    if (auto it = providing.find(name); it != providing.end()) {
      for (RecordId id : it->second) include(id);
    }
  }
  return included;
}

// Solvables are allocated a run of same-repo records at a time (one by one, libsolv grows its
// array by 255 each time); the ids are those one-by-one adding would give. Returns the solvable
// of each included record.
std::vector<SolvableId> Universe::allocate_solvables(const std::vector<bool>& included,
                                                     solv::Repo& available, solv::Repo& system) {
  const auto& records = database_.records();
  record_of_solvable_.assign(pool_.solvable_count(), no_record);
  std::vector<SolvableId> solvable_of(records.size());
  for (RecordId id = 0; id < records.size();) {
    if (!included[id]) {
      ++id;
      continue;
    }
    const RecordKind kind = records[id].kind;
    int run = 0;
    RecordId end = id;
    for (; end < records.size() && (!included[end] || records[end].kind == kind); ++end) {
      if (included[end]) ++run;
    }
    const auto block = (kind == RecordKind::system ? system : available).add_solvables(run);
    std::size_t next = 0;
    for (; id < end; ++id) {
      if (included[id]) solvable_of[id] = block[next++];
    }
  }
  record_of_solvable_.resize(pool_.solvable_count(), no_record);
  return solvable_of;
}

// Names, versions and provides of the included records. Returns the available versions of each
// name that has no system record, the candidates for version ladders.
std::unordered_map<std::string, std::vector<Provider>> Universe::add_names(
    const std::vector<bool>& included, solv::Repo& available, solv::Repo& system) {
  const auto& records = database_.records();
  std::unordered_map<std::string, std::vector<Provider>> versions_by_name;
  std::unordered_set<std::string> system_names;
  for (RecordId id = 0; id < records.size(); ++id) {
    if (!included[id]) continue;
    const PackageRecord& record = records[id];
    const bool is_system = record.kind == RecordKind::system;
    solv::Repo& repo = is_system ? system : available;
    const SolvableId solvable = solvable_of_record_[id];
    repo.set_solvable(solvable, pool_.intern(record.name), pool_.intern(to_evr(record.version)));
    record_of_solvable_[solvable.index()] = id;
    providers_.add(record.name, {solvable, &record.version});
    if (is_system) {
      system_names.insert(record.name);
    } else {
      versions_by_name[record.name].push_back({solvable, &record.version});
    }
    for (const Provide& provide : record.provides) {
      const core::Version& version = provide.version ? *provide.version : record.version;
      // A plain name provide lets libsolv see the edge too (e.g. in its own messages).
      repo.add_provide(solvable, solv::dep_on_name(pool_.intern(provide.name)));
      providers_.add(provide.name, {solvable, &version});
    }
  }
  // A name with a system record keeps libsolv's own rules: they also decide what may
  // replace what is installed.
  for (const std::string& name : system_names) versions_by_name.erase(name);
  return versions_by_name;
}

// Requirements and conflicts, after every record exists so the same key ids are shared. System
// records are facts about the target: what they would need is not solved for.
void Universe::add_dependencies(const std::vector<bool>& included, solv::Repo& available) {
  const auto& records = database_.records();
  for (RecordId id = 0; id < records.size(); ++id) {
    if (!included[id] || records[id].kind == RecordKind::system) continue;
    const PackageRecord& record = records[id];
    const SolvableId solvable = solvable_of_record_[id];
    requirement_deps_[id].reserve(record.requirements.size());
    for (const Dependency& requirement : record.requirements) {
      const DepId dep = keys_.dep_of(requirement, true, true);
      available.add_requirement(solvable, dep);
      requirement_deps_[id].push_back(dep);
    }
    for (const Dependency& conflict : record.conflicts) {
      const DepId dep = keys_.dep_of(conflict, false, true);
      available.add_conflict(solvable, dep);
      conflict_origin_.emplace(ConflictSite{solvable, dep}, conflict.origin);
    }
  }
}

// System records are facts about the target: what they require is not solved for, yet a
// solution lists which chosen packages satisfy it. Those relations are made here, once the
// pool and the jobs are complete, so that reading a solution or an explanation changes
// nothing (a const Universe). Made last, they take no part in the pre-release rule and leave
// the ids of all that is solved for as they were, as when they were made on first use.
void Universe::add_system_requirement_deps() {
  const auto& records = database_.records();
  for (RecordId id = 0; id < records.size(); ++id) {
    if (solvable_of_record_[id].is_none() || records[id].kind != RecordKind::system) continue;
    for (const Dependency& requirement : records[id].requirements) {
      requirement_deps_[id].push_back(keys_.dep_of(requirement, true, true));
    }
  }
}

void Universe::add_records() {
  std::vector<bool> included = reachable_records();
  if (request_.merge_alike_versions) drop_alike_versions(database_, request_, included);
  solv::Repo available = pool_.add_repo("available");
  solv::Repo system = pool_.add_repo("system");
  requirement_deps_.resize(database_.records().size());
  solvable_of_record_ = allocate_solvables(included, available, system);
  auto versions_by_name = add_names(included, available, system);
  providers_.sort_by_version();
  add_dependencies(included, available);
  // Last, so that a version's own dependencies come first, as without a ladder.
  ladders_.add(pool_, available, versions_by_name, options_.ladder_min_versions);
  available.internalize();
  system.internalize();
  system_is_installed_ = system_shares_names();
  if (system_is_installed_) pool_.set_installed(system);
}

// Whether a system record shares its name (or a name it provides) with another record in the
// pool. Only then must libsolv see the system as the installed repo: its update rules decide
// what may replace an installed package, and two installed versions of one name may stay.
// Otherwise (virtual facts such as `__python`) install jobs fix them just as well, and without
// an installed repo libsolv skips its choice rules, whose search for installed packages is
// quadratic in the versions of a name.
bool Universe::system_shares_names() const {
  const auto& records = database_.records();
  auto shared = [&](const std::string& name, SolvableId self) {
    const NameProviders* found = providers_.find(name);
    if (found == nullptr) return false;
    return std::any_of(found->list.begin(), found->list.end(),
                       [&](const Provider& p) { return p.solvable != self; });
  };
  for (RecordId id = 0; id < records.size(); ++id) {
    const SolvableId self = solvable_of_record_[id];
    if (self.is_none() || records[id].kind != RecordKind::system) continue;
    if (shared(records[id].name, self)) return true;
    for (const Provide& provide : records[id].provides) {
      if (shared(provide.name, self)) return true;
    }
  }
  return false;
}

void Universe::add_imposed_conflicts() {
  for (const ImposedConflict& conflict : request_.conflicts) {
    if (!conflict.other) continue;  // forbids are jobs
    const DepId other = keys_.dep_of(*conflict.other, false, true);
    const std::string subject = normalize_package_name(conflict.subject.name);
    for (const RecordId id : database_.find(subject)) {
      const PackageRecord& record = database_.record(id);
      const SolvableId solvable = solvable_of_record_[id];
      if (solvable.is_none() || !conflict.subject.specifier.contains(record.version, true)) {
        continue;
      }
      pool_.repo_of(solvable).add_conflict(solvable, other);
      conflict_origin_.emplace(ConflictSite{solvable, other}, conflict.origin);
    }
  }
}

bool Universe::is_record(SolvableId solvable) const {
  const std::size_t index = solvable.index();
  return !solvable.is_none() && index < record_of_solvable_.size() &&
         record_of_solvable_[index] != no_record;
}

const JobInfo* Universe::job_info(JobId job) const {
  const std::size_t slot = solv::position_of(job);
  return slot < job_infos_.size() ? &job_infos_[slot] : nullptr;
}

DepId Universe::requirement_dep(RecordId id, std::size_t index) const {
  return requirement_deps_.at(id).at(index);
}

const Dependency* Universe::requirement_of(SolvableId solvable, DepId dep) const {
  if (!is_record(solvable)) return nullptr;
  const RecordId id = record_of(solvable);
  const std::vector<DepId>& deps = requirement_deps_[id];
  for (std::size_t i = 0; i < deps.size(); ++i) {
    if (deps[i] == dep) return &database_.record(id).requirements[i];
  }
  return nullptr;
}

std::vector<std::string> Universe::conflict_origins(SolvableId solvable, DepId dep) const {
  std::vector<std::string> origins;
  auto [begin, end] = conflict_origin_.equal_range(ConflictSite{solvable, dep});
  for (auto it = begin; it != end; ++it) {
    if (!it->second.empty()) origins.push_back(it->second);
  }
  return origins;
}

std::string Universe::version_text(SolvableId solvable) const {
  if (!is_record(solvable)) return std::string(pool_.solvable_evr(solvable));
  return database_.record(record_of(solvable)).version.to_string();
}

}  // namespace bevenv::solver::detail
