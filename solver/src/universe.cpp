#include "universe.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include "bevenv/core/name.hpp"
#include "evr.hpp"
#include "solv/jobs.hpp"
#include "solv/repo.hpp"

namespace bevenv::solver::detail {
namespace {

constexpr RecordId no_record = std::numeric_limits<RecordId>::max();

bool mentions_prerelease(const core::SpecifierSet& set) {
  for (const auto& s : set.specifiers()) {
    if (s.mentions_prerelease()) return true;
  }
  return false;
}

// Whether two of `dependencies` name one package (requirement lists are short: pairs are
// cheaper than a map).
bool repeats_a_name(const std::vector<Dependency>& dependencies) {
  std::vector<std::string> names;
  names.reserve(dependencies.size());
  for (const Dependency& d : dependencies) {
    std::string name = normalize_package_name(d.name);
    if (std::find(names.begin(), names.end(), name) != names.end()) return true;
    names.push_back(std::move(name));
  }
  return false;
}

}  // namespace

Universe::Universe(const Database& database, const Request& request, const UniverseOptions& options)
    : database_(database), request_(request), options_(options) {
  pool_.set_namespace_resolver([this](StringId argument) { return resolve(argument); });
  add_records();
  add_imposed_conflicts();
  for (const Dependency& root : request_.requirements) {
    root_deps_.push_back(dep_of(root, true, true));
  }
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
    providers_[record.name].list.push_back({solvable, &record.version});
    if (is_system) {
      system_names.insert(record.name);
    } else {
      versions_by_name[record.name].push_back({solvable, &record.version});
    }
    for (const Provide& provide : record.provides) {
      const core::Version& version = provide.version ? *provide.version : record.version;
      // A plain name provide lets libsolv see the edge too (e.g. in its own messages).
      repo.add_provide(solvable, solv::dep_on_name(pool_.intern(provide.name)));
      providers_[provide.name].list.push_back({solvable, &version});
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
      const DepId dep = dep_of(requirement, true, true);
      available.add_requirement(solvable, dep);
      requirement_deps_[id].push_back(dep);
    }
    for (const Dependency& conflict : record.conflicts) {
      const DepId dep = dep_of(conflict, false, true);
      available.add_conflict(solvable, dep);
      conflict_origin_.emplace(ConflictSite{solvable, dep}, conflict.origin);
    }
  }
}

void Universe::add_records() {
  const std::vector<bool> included = reachable_records();
  solv::Repo available = pool_.add_repo("available");
  solv::Repo system = pool_.add_repo("system");
  requirement_deps_.resize(database_.records().size());
  solvable_of_record_ = allocate_solvables(included, available, system);
  auto versions_by_name = add_names(included, available, system);
  index_providers();
  add_dependencies(included, available);
  // Last, so that a version's own dependencies come first, as without a ladder.
  add_version_ladders(available, versions_by_name);
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
    const auto found = providers_.find(name);
    if (found == providers_.end()) return false;
    return std::any_of(found->second.list.begin(), found->second.list.end(),
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

// "At most one version of X" as a sequential counter: with X's versions v0 < v1 < … < vn-1,
// auxiliary solvable k (k < n-1) stands for "some version at position <= k is installed":
//   vk requires rung k;  rung k requires rung k+1;  vk conflicts with rung k-1.
// Installing vj installs every rung from j up, and every vk above j conflicts with one of
// them, while every vk below j would need rung j-1, which vj conflicts with. The versions
// are marked multiversion so libsolv leaves out its pairwise rules; its version preference
// is by name and unchanged.
void Universe::add_version_ladders(
    solv::Repo& repo, std::unordered_map<std::string, std::vector<Provider>>& by_name) {
  const StringId empty_evr = pool_.intern("");
  const std::size_t min_versions = std::max<std::size_t>(options_.ladder_min_versions, 2);
  std::size_t aux_count = 0;
  for (const auto& entry : by_name) {
    if (entry.second.size() >= min_versions) aux_count += entry.second.size() - 1;
  }
  if (aux_count == 0) return;
  const auto aux = repo.add_solvables(static_cast<int>(aux_count));
  std::size_t next_aux = 0;
  rung_of_version_.assign(pool_.solvable_count(), Rung{no_ladder, 0});
  rung_of_aux_.assign(pool_.solvable_count(), Rung{no_ladder, 0});
  std::size_t ladder = 0;
  for (auto& [name, versions] : by_name) {
    if (versions.size() < min_versions) continue;
    std::stable_sort(versions.begin(), versions.end(),
                     [](const Provider& a, const Provider& b) { return *a.version < *b.version; });
    const std::size_t rungs = versions.size() - 1;
    std::vector<StringId> rung_names(rungs);
    std::vector<SolvableId> rung_solvables(rungs);
    // `#` never occurs in a normalized package name.
    std::string rung_name = name + '#';
    const std::size_t prefix = rung_name.size();
    for (std::size_t k = 0; k < rungs; ++k) {
      rung_name.resize(prefix);
      rung_name += std::to_string(k);
      rung_names[k] = pool_.intern(rung_name);
      const std::size_t name_index = rung_names[k].index();
      if (name_index >= is_rung_name_.size()) is_rung_name_.resize(name_index + 1, false);
      is_rung_name_[name_index] = true;
      rung_solvables[k] = aux[next_aux++];
      repo.set_solvable(rung_solvables[k], rung_names[k], empty_evr);
      rung_of_aux_[rung_solvables[k].index()] = Rung{ladder, k};
    }
    for (std::size_t k = 0; k < versions.size(); ++k) {
      const SolvableId version = versions[k].solvable;
      laddered_.push_back(version);
      rung_of_version_[version.index()] = Rung{ladder, k};
      if (k < rungs) repo.add_requirement(version, solv::dep_on_name(rung_names[k]));
      if (k > 0) repo.add_conflict(version, solv::dep_on_name(rung_names[k - 1]));
      if (k + 1 < rungs) {
        repo.add_requirement(rung_solvables[k], solv::dep_on_name(rung_names[k + 1]));
      }
    }
    ++ladder;
  }
}

void Universe::add_imposed_conflicts() {
  for (const ImposedConflict& conflict : request_.conflicts) {
    if (!conflict.other) continue;  // forbids are jobs
    const DepId other = dep_of(*conflict.other, false, true);
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

void Universe::add_jobs() {
  using solv::JobAction;
  auto push = [this](JobAction action, auto what, JobInfo info) {
    jobs_.add(action, what);
    job_infos_.push_back(info);
  };
  // Jobs select their solvables as explicit lists: libsolv gives namespace relations in jobs
  // special meaning (an install job whose relation resolves to nothing counts as satisfied).
  auto push_dep = [&](JobAction action, DepId dep, JobKind kind, std::size_t index) {
    push(action, pool_.list_id(pool_.whatprovides(dep)), {kind, index, dep});
  };
  // Root requirements come first, so that job i + 1 is requirement i (see root_dep()).
  for (std::size_t i = 0; i < request_.requirements.size(); ++i) {
    push_dep(JobAction::install, root_deps_[i], JobKind::requirement, i);
  }
  for (std::size_t i = 0; i < request_.conflicts.size(); ++i) {
    if (request_.conflicts[i].other) continue;
    push_dep(JobAction::erase, dep_of(request_.conflicts[i].subject, false, true), JobKind::forbid,
             i);
  }
  if (!laddered_.empty()) {
    push(JobAction::multiversion, pool_.list_id(laddered_), {JobKind::preference, 0, {}});
  }
  const auto& records = database_.records();
  for (RecordId id = 0; id < records.size(); ++id) {
    const SolvableId solvable = solvable_of_record_[id];
    if (solvable.is_none()) continue;
    if (records[id].kind == RecordKind::system) {
      // Kept as installed, or (no installed repo, see add_records) installed by the job.
      const JobAction keep = system_is_installed_ ? JobAction::lock : JobAction::install;
      push(keep, solvable, {JobKind::lock, id, {}});
    }
    if (records[id].preferred) push(JobAction::favor, solvable, {JobKind::preference, id, {}});
    if (records[id].disfavored) {
      push(JobAction::disfavor, solvable, {JobKind::preference, id, {}});
    }
  }
  // Pre-releases are tried last (pip prefers final releases), unless allowed for their name.
  std::vector<SolvableId> prereleases;
  for (RecordId id = 0; id < records.size(); ++id) {
    const SolvableId solvable = solvable_of_record_[id];
    if (!solvable.is_none() && records[id].is_prerelease() &&
        !prereleases_allowed(records[id].name)) {
      prereleases.push_back(solvable);
    }
  }
  if (!prereleases.empty()) {
    push(JobAction::disfavor, pool_.list_id(prereleases), {JobKind::preference, 0, {}});
  }
  // libsolv lets the last favor/disfavor job win, so the request's preferences come last.
  for (std::size_t i = 0; i < request_.disfavored.size(); ++i) {
    const Preference& p = request_.disfavored[i];
    push_dep(JobAction::disfavor, dep_of({p.name, p.versions, {}}, false), JobKind::preference, i);
  }
  add_preference_jobs(0);
}

void Universe::add_preference_jobs(std::size_t first) {
  for (std::size_t i = first; i < request_.preferred.size(); ++i) {
    const Preference& p = request_.preferred[i];
    const DepId dep = dep_of({p.name, p.versions, {}}, false);
    jobs_.add(solv::JobAction::favor, pool_.list_id(pool_.whatprovides(dep)));
    job_infos_.push_back({JobKind::preference, i, dep});
  }
}

DepId Universe::dep_of(const Dependency& dependency, bool prerelease_policy, bool lasting) {
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
  const StringId argument = pool_.intern(prerelease_policy ? display : display + " (any)");
  const std::size_t slot = argument.index();
  if (slot >= key_of_argument_.size()) {
    key_of_argument_.resize(std::max(slot + 1, pool_.string_count()), no_key);
  }
  if (key_of_argument_[slot] == no_key) {
    key_of_argument_[slot] = static_cast<std::uint32_t>(keys_.size());
    const core::SpecifierSet* specifier = &dependency.specifier;
    if (!lasting) specifier = &owned_specifiers_.emplace_back(dependency.specifier);
    std::string name = display.substr(0, name_length);
    const auto found = providers_.find(name);
    const NameProviders* providers = found == providers_.end() ? nullptr : &found->second;
    DepKey& key = keys_.emplace_back(
        DepKey{std::move(name), specifier, providers, prerelease_policy, std::move(display)});
    bound_candidates(key);
  }
  return pool_.namespace_dep(argument);
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
    if (key.prerelease_policy) enable_prereleases_for(key.name, key.providers, *key.specifier);
  }
  // pip also merges several requirements on one name: those of one package, and the roots.
  auto merge_by_name = [this](const std::vector<Dependency>& dependencies) {
    if (!repeats_a_name(dependencies)) return;  // the common case, without building a map
    std::unordered_map<std::string, std::pair<core::SpecifierSet, int>> merged;
    for (const Dependency& d : dependencies) {
      auto [it, inserted] = merged.try_emplace(normalize_package_name(d.name), d.specifier, 1);
      if (!inserted) {
        it->second.first = it->second.first.intersect(d.specifier);
        ++it->second.second;
      }
    }
    for (const auto& [name, entry] : merged) {
      if (entry.second > 1) {
        const auto found = providers_.find(name);
        enable_prereleases_for(name, found == providers_.end() ? nullptr : &found->second,
                               entry.first);
      }
    }
  };
  merge_by_name(request_.requirements);
  const auto& records = database_.records();
  for (RecordId id = 0; id < records.size(); ++id) {
    if (!solvable_of_record_[id].is_none() && records[id].kind != RecordKind::system &&
        records[id].requirements.size() > 1) {
      merge_by_name(records[id].requirements);
    }
  }
}

void Universe::enable_prereleases_for(const std::string& name, const NameProviders* providers,
                                      const core::SpecifierSet& specifier) {
  if (providers == nullptr || !providers->any_prerelease || prereleases_allowed(name)) return;
  const std::vector<Provider>& candidates = providers->list;
  const bool admits_prereleases =
      mentions_prerelease(specifier) ||
      std::none_of(candidates.begin(), candidates.end(), [&](const Provider& p) {
        return !p.version->is_prerelease() && specifier.contains(*p.version, true);
      });
  if (!admits_prereleases) return;
  for (const Provider& p : candidates) {
    if (p.version->is_prerelease() && specifier.contains(*p.version, true)) {
      enabled_prereleases_.insert(p.solvable);
    }
  }
}

void Universe::index_providers() {
  for (auto& [name, providers] : providers_) {
    const std::vector<Provider>& list = providers.list;
    std::vector<std::uint32_t>& order = providers.by_version;
    order.resize(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      order[i] = static_cast<std::uint32_t>(i);
      if (list[i].version->is_prerelease()) providers.any_prerelease = true;
    }
    std::stable_sort(order.begin(), order.end(), [&list](std::uint32_t a, std::uint32_t b) {
      return *list[a].version < *list[b].version;
    });
  }
}

// `>=` holds on a suffix of the versions in PEP 440 order and `<=` (which compares public
// versions) on a prefix, so they narrow the candidates by binary search; resolve() checks the
// other specifiers (contains(v, true) is every specifier matching) on what is left.
void Universe::bound_candidates(DepKey& key) {
  if (key.providers == nullptr) return;
  const std::vector<std::uint32_t>& order = key.providers->by_version;
  const std::vector<Provider>& list = key.providers->list;
  auto first = order.begin();
  auto last = order.end();
  key.bounded = true;
  for (const core::Specifier& specifier : key.specifier->specifiers()) {
    auto matches = [&](std::uint32_t i) { return specifier.matches(*list[i].version); };
    if (specifier.op() == core::Operator::greater_equal) {
      first = std::partition_point(first, last, [&](std::uint32_t i) { return !matches(i); });
    } else if (specifier.op() == core::Operator::less_equal) {
      last = std::partition_point(first, last, matches);
    } else {
      key.bounded = false;
    }
  }
  key.begin = static_cast<std::uint32_t>(first - order.begin());
  key.end = static_cast<std::uint32_t>(last - order.begin());
}

std::vector<SolvableId> Universe::resolve(StringId argument) const {
  const std::size_t slot = argument.index();
  if (slot >= key_of_argument_.size() || key_of_argument_[slot] == no_key) return {};
  const DepKey& key = keys_[key_of_argument_[slot]];
  const bool any_prerelease = !key.prerelease_policy || prereleases_allowed(key.name);
  if (key.providers == nullptr) return {};
  const std::vector<Provider>& list = key.providers->list;
  const std::uint32_t* first = key.providers->by_version.data() + key.begin;
  const std::uint32_t* last = key.providers->by_version.data() + key.end;
  const bool narrowed = key.begin != 0 || key.end != key.providers->by_version.size();
  const bool check_prereleases = !any_prerelease && key.providers->any_prerelease;
  auto is_bound = [](const core::Specifier& specifier) {
    return specifier.op() == core::Operator::greater_equal ||
           specifier.op() == core::Operator::less_equal;
  };
  auto admits = [&](const Provider& provider) {
    if (check_prereleases && provider.version->is_prerelease() &&
        enabled_prereleases_.count(provider.solvable) == 0) {
      return false;
    }
    if (key.bounded) return true;
    const auto& specifiers = key.specifier->specifiers();
    return std::all_of(specifiers.begin(), specifiers.end(), [&](const core::Specifier& s) {
      return is_bound(s) || s.matches(*provider.version);
    });
  };
  std::vector<SolvableId> result;
  if (!narrowed) {
    for (const Provider& provider : list) {
      if (admits(provider)) result.push_back(provider.solvable);
    }
    return result;
  }
  // Back in insertion order: libsolv breaks some ties by the order of a provider list.
  std::vector<std::uint32_t> matching;
  for (auto it = first; it < last; ++it) {
    if (admits(list[*it])) matching.push_back(*it);
  }
  std::sort(matching.begin(), matching.end());
  result.reserve(matching.size());
  for (std::uint32_t i : matching) result.push_back(list[i].solvable);
  return result;
}

bool Universe::is_record(SolvableId solvable) const {
  const std::size_t index = solvable.index();
  return !solvable.is_none() && index < record_of_solvable_.size() &&
         record_of_solvable_[index] != no_record;
}

const Rung* Universe::rung(SolvableId solvable) const {
  const std::size_t index = solvable.index();
  if (solvable.is_none() || index >= rung_of_aux_.size()) return nullptr;
  return rung_of_aux_[index].ladder == no_ladder ? nullptr : &rung_of_aux_[index];
}

bool Universe::is_rung_dep(DepId dep) const {
  const StringId name = solv::plain_name_of(dep);
  return !name.is_none() && name.index() < is_rung_name_.size() && is_rung_name_[name.index()];
}

const Rung* Universe::version_rung(SolvableId solvable) const {
  const std::size_t index = solvable.index();
  if (solvable.is_none() || index >= rung_of_version_.size()) return nullptr;
  return rung_of_version_[index].ladder == no_ladder ? nullptr : &rung_of_version_[index];
}

bool Universe::climbs_to(SolvableId version, SolvableId aux) const {
  const Rung* from = version_rung(version);
  const Rung* target = rung(aux);
  return from != nullptr && target != nullptr && from->ladder == target->ladder &&
         from->position <= target->position;
}

std::uint32_t Universe::key_index(DepId dep) const {
  const StringId argument = pool_.namespace_argument(dep);
  const std::size_t slot = argument.index();
  return argument.is_none() || slot >= key_of_argument_.size() ? no_key : key_of_argument_[slot];
}

const DepKey& Universe::key_of(DepId dep) const {
  const std::uint32_t index = key_index(dep);
  if (index == no_key) throw std::out_of_range("not a dependency of this universe");
  return keys_[index];
}

const JobInfo* Universe::job_info(JobId job) const {
  const std::size_t slot = solv::position_of(job);
  return slot < job_infos_.size() ? &job_infos_[slot] : nullptr;
}

DepId Universe::requirement_dep(RecordId id, std::size_t index) {
  const std::vector<DepId>& deps = requirement_deps_.at(id);
  if (index < deps.size()) return deps[index];
  return dep_of(database_.record(id).requirements.at(index), true, true);
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

const std::vector<Provider>& Universe::providers(const std::string& name) const {
  static const std::vector<Provider> none;
  const auto found = providers_.find(name);
  return found == providers_.end() ? none : found->second.list;
}

std::string Universe::version_text(SolvableId solvable) const {
  if (!is_record(solvable)) return std::string(pool_.solvable_evr(solvable));
  return database_.record(record_of(solvable)).version.to_string();
}

}  // namespace bevenv::solver::detail
