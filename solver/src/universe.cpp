#include "universe.hpp"

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "bevenv/core/name.hpp"
#include "evr.hpp"
#include "solv/repo.hpp"

namespace bevenv::solver::detail {
namespace {

constexpr RecordId no_record = std::numeric_limits<RecordId>::max();

std::uint64_t pair_key(Id solvable, Id dep) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(solvable)) << 32) |
         static_cast<std::uint32_t>(dep);
}

bool mentions_prerelease(const core::SpecifierSet& set) {
  for (const auto& s : set.specifiers()) {
    if (s.mentions_prerelease()) return true;
  }
  return false;
}

}  // namespace

Universe::Universe(const Database& database, const Request& request)
    : database_(database), request_(request) {
  pool_.set_namespace_resolver([this](Id argument) { return resolve(argument); });
  add_records();
  add_imposed_conflicts();
  for (const Dependency& root : request_.requirements) root_deps_.push_back(dep_of(root, true));
  enable_prereleases();
  pool_.create_whatprovides();
  add_jobs();
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

void Universe::add_records() {
  const std::vector<bool> included = reachable_records();
  solv::Repo available = pool_.add_repo("available");
  solv::Repo system = pool_.add_repo("system");
  record_of_solvable_.assign(static_cast<std::size_t>(pool_.solvable_count()), no_record);
  const auto& records = database_.records();
  solvable_of_record_.assign(records.size(), 0);
  requirement_deps_.resize(records.size());
  for (RecordId id = 0; id < records.size(); ++id) {
    if (!included[id]) continue;
    const PackageRecord& record = records[id];
    solv::Repo& repo = record.kind == RecordKind::system ? system : available;
    const Id name = pool_.intern(record.name);
    const Id solvable = repo.add_solvable(name, pool_.intern(to_evr(record.version)));
    solvable_of_record_[id] = solvable;
    record_of_solvable_.resize(static_cast<std::size_t>(solvable) + 1, no_record);
    record_of_solvable_[static_cast<std::size_t>(solvable)] = id;
    providers_[record.name].push_back({solvable, record.version});
    for (const Provide& provide : record.provides) {
      const core::Version& version = provide.version ? *provide.version : record.version;
      // A plain name provide lets libsolv see the edge too (e.g. in its own messages).
      repo.add_provide(solvable, pool_.intern(provide.name));
      providers_[provide.name].push_back({solvable, version});
    }
  }
  // Dependencies go in after every record exists so the same key ids are shared.
  for (RecordId id = 0; id < records.size(); ++id) {
    // System records are facts about the target: what they would need is not solved for.
    if (!included[id] || records[id].kind == RecordKind::system) continue;
    const PackageRecord& record = records[id];
    solv::Repo& repo = available;
    const Id solvable = solvable_of_record_[id];
    requirement_deps_[id].reserve(record.requirements.size());
    for (const Dependency& requirement : record.requirements) {
      const Id dep = dep_of(requirement, true);
      repo.add_requirement(solvable, dep);
      requirement_deps_[id].push_back(dep);
    }
    for (const Dependency& conflict : record.conflicts) {
      const Id dep = dep_of(conflict, false);
      repo.add_conflict(solvable, dep);
      conflict_origin_.emplace(pair_key(solvable, dep), conflict.origin);
    }
  }
  available.internalize();
  system.internalize();
  pool_.set_installed(system);
}

void Universe::add_imposed_conflicts() {
  for (const ImposedConflict& conflict : request_.conflicts) {
    if (!conflict.other) continue;  // forbids are jobs
    const Id other = dep_of(*conflict.other, false);
    const std::string subject = normalize_package_name(conflict.subject.name);
    for (const RecordId id : database_.find(subject)) {
      const PackageRecord& record = database_.record(id);
      const Id solvable = solvable_of_record_[id];
      if (solvable == 0 || !conflict.subject.specifier.contains(record.version, true)) continue;
      solv::Repo repo(pool_, pool_.solvable(solvable).repo);
      repo.add_conflict(solvable, other);
      conflict_origin_.emplace(pair_key(solvable, other), conflict.origin);
    }
  }
}

void Universe::add_jobs() {
  auto push = [this](Id how, Id what, JobInfo info) {
    jobs_.push2(how, what);
    job_infos_.push_back(info);
  };
  // Jobs select their solvables as explicit lists: libsolv gives namespace relations in jobs
  // special meaning (an install job whose relation resolves to nothing counts as satisfied).
  auto push_dep = [&](Id how, Id dep, JobKind kind, std::size_t index) {
    solv::Queue selection;
    for (Id p : pool_.whatprovides(dep)) selection.push(p);
    push(how | SOLVER_SOLVABLE_ONE_OF, pool_.list_id(selection), {kind, index, dep});
  };
  // Root requirements come first, so that job i + 1 is requirement i (see root_dep()).
  for (std::size_t i = 0; i < request_.requirements.size(); ++i) {
    push_dep(SOLVER_INSTALL, root_deps_[i], JobKind::requirement, i);
  }
  for (std::size_t i = 0; i < request_.conflicts.size(); ++i) {
    if (request_.conflicts[i].other) continue;
    push_dep(SOLVER_ERASE, dep_of(request_.conflicts[i].subject, false), JobKind::forbid, i);
  }
  const auto& records = database_.records();
  for (RecordId id = 0; id < records.size(); ++id) {
    const Id solvable = solvable_of_record_[id];
    if (solvable == 0) continue;
    if (records[id].kind == RecordKind::system) {
      push(SOLVER_LOCK | SOLVER_SOLVABLE, solvable, {JobKind::lock, id, 0});
    }
    if (records[id].preferred) {
      push(SOLVER_FAVOR | SOLVER_SOLVABLE, solvable, {JobKind::preference, id, 0});
    }
    if (records[id].disfavored) {
      push(SOLVER_DISFAVOR | SOLVER_SOLVABLE, solvable, {JobKind::preference, id, 0});
    }
  }
  // Pre-releases are tried last (pip prefers final releases), unless allowed for their name.
  solv::Queue prereleases;
  for (RecordId id = 0; id < records.size(); ++id) {
    const Id solvable = solvable_of_record_[id];
    if (solvable != 0 && records[id].is_prerelease() && !prereleases_allowed(records[id].name)) {
      prereleases.push(solvable);
    }
  }
  if (!prereleases.empty()) {
    push(SOLVER_DISFAVOR | SOLVER_SOLVABLE_ONE_OF, pool_.list_id(prereleases),
         {JobKind::preference, 0, 0});
  }
  // libsolv lets the last favor/disfavor job win, so the request's preferences come last.
  for (std::size_t i = 0; i < request_.disfavored.size(); ++i) {
    const Preference& p = request_.disfavored[i];
    push_dep(SOLVER_DISFAVOR, dep_of({p.name, p.versions, {}}, false), JobKind::preference, i);
  }
  for (std::size_t i = 0; i < request_.preferred.size(); ++i) {
    const Preference& p = request_.preferred[i];
    push_dep(SOLVER_FAVOR, dep_of({p.name, p.versions, {}}, false), JobKind::preference, i);
  }
}

Id Universe::dep_of(const Dependency& dependency, bool prerelease_policy) {
  // The specifiers as written, in order: cheap to build (no canonical sort) and it reads
  // better in explanations (`>=1.3.8,<=1.4.0`). Equal sets written differently merely get
  // two relations with the same answer.
  std::string display = normalize_package_name(dependency.name);
  const std::size_t name_length = display.size();
  const auto& specifiers = dependency.specifier.specifiers();
  for (std::size_t i = 0; i < specifiers.size(); ++i) {
    display += i == 0 ? ' ' : ',';
    display += operator_text(specifiers[i].op());
    display += specifiers[i].version_text();
  }
  const Id argument = pool_.intern(prerelease_policy ? display : display + " (any)");
  auto [it, inserted] = key_of_argument_.emplace(argument, keys_.size());
  if (inserted) {
    std::string name = display.substr(0, name_length);
    keys_.push_back({std::move(name), dependency.specifier, prerelease_policy, std::move(display)});
  }
  const Id dep = pool_.namespace_dep(argument);
  key_of_dep_.emplace(dep, it->second);
  return dep;
}

bool Universe::prereleases_allowed(const std::string& name) const {
  return request_.allow_prereleases || request_.allow_prereleases_for.count(name) != 0;
}

// pip's pre-release rule, applied per package name rather than per requirement (pip merges
// the specifiers on a name before filtering): a pre-release can be chosen when a requirement
// on its name admits it by naming a pre-release (`>=1.0.0rc1`) or by having no final release
// that matches. Once admitted it satisfies every requirement it matches; being disfavored,
// it is still chosen only when no final release works. Every requirement counts, not only
// those of the packages finally chosen, which makes this slightly more permissive than pip.
void Universe::enable_prereleases() {
  for (const DepKey& key : keys_) {
    if (key.prerelease_policy) enable_prereleases_for(key.name, key.specifier);
  }
  // pip also merges several requirements on one name: those of one package, and the roots.
  auto merge_by_name = [this](const std::vector<Dependency>& dependencies) {
    std::unordered_map<std::string, std::pair<core::SpecifierSet, int>> merged;
    for (const Dependency& d : dependencies) {
      auto [it, inserted] = merged.try_emplace(normalize_package_name(d.name), d.specifier, 1);
      if (!inserted) {
        it->second.first = it->second.first.intersect(d.specifier);
        ++it->second.second;
      }
    }
    for (const auto& [name, entry] : merged) {
      if (entry.second > 1) enable_prereleases_for(name, entry.first);
    }
  };
  merge_by_name(request_.requirements);
  const auto& records = database_.records();
  for (RecordId id = 0; id < records.size(); ++id) {
    if (solvable_of_record_[id] != 0 && records[id].kind != RecordKind::system &&
        records[id].requirements.size() > 1) {
      merge_by_name(records[id].requirements);
    }
  }
}

void Universe::enable_prereleases_for(const std::string& name,
                                      const core::SpecifierSet& specifier) {
  if (prereleases_allowed(name)) return;
  const auto& candidates = providers(name);
  const bool admits_prereleases =
      mentions_prerelease(specifier) ||
      std::none_of(candidates.begin(), candidates.end(), [&](const Provider& p) {
        return !p.version.is_prerelease() && specifier.contains(p.version, true);
      });
  if (!admits_prereleases) return;
  for (const Provider& p : candidates) {
    if (p.version.is_prerelease() && specifier.contains(p.version, true)) {
      enabled_prereleases_.insert(p.solvable);
    }
  }
}

std::vector<Id> Universe::resolve(Id argument) const {
  const auto found = key_of_argument_.find(argument);
  if (found == key_of_argument_.end()) return {};
  const DepKey& key = keys_[found->second];
  const bool any_prerelease = !key.prerelease_policy || prereleases_allowed(key.name);
  std::vector<Id> matches;
  for (const Provider& provider : providers(key.name)) {
    if (!any_prerelease && provider.version.is_prerelease() &&
        enabled_prereleases_.count(provider.solvable) == 0) {
      continue;
    }
    if (key.specifier.contains(provider.version, true)) matches.push_back(provider.solvable);
  }
  return matches;
}

bool Universe::is_record(Id solvable) const {
  const auto index = static_cast<std::size_t>(solvable);
  return solvable > 0 && index < record_of_solvable_.size() &&
         record_of_solvable_[index] != no_record;
}

const DepKey& Universe::key_of(Id dep) const { return keys_.at(key_of_dep_.at(dep)); }

const JobInfo* Universe::job_info(Id job_index) const {
  const auto slot = static_cast<std::size_t>(job_index) / 2;
  return slot < job_infos_.size() ? &job_infos_[slot] : nullptr;
}

const Dependency* Universe::requirement_of(Id solvable, Id dep) const {
  if (!is_record(solvable)) return nullptr;
  const RecordId id = record_of(solvable);
  const std::vector<Id>& deps = requirement_deps_[id];
  for (std::size_t i = 0; i < deps.size(); ++i) {
    if (deps[i] == dep) return &database_.record(id).requirements[i];
  }
  return nullptr;
}

std::vector<std::string> Universe::conflict_origins(Id solvable, Id dep) const {
  std::vector<std::string> origins;
  auto [begin, end] = conflict_origin_.equal_range(pair_key(solvable, dep));
  for (auto it = begin; it != end; ++it) {
    if (!it->second.empty()) origins.push_back(it->second);
  }
  return origins;
}

const std::vector<Provider>& Universe::providers(const std::string& name) const {
  static const std::vector<Provider> none;
  const auto found = providers_.find(name);
  return found == providers_.end() ? none : found->second;
}

std::string Universe::version_text(Id solvable) const {
  if (!is_record(solvable)) return std::string(pool_.solvable_evr(solvable));
  return database_.record(record_of(solvable)).version.to_string();
}

}  // namespace bevenv::solver::detail
