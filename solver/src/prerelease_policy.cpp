#include "prerelease_policy.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace bevenv::solver::detail {
namespace {

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

bool PrereleasePolicy::allows_all(const std::string& name) const {
  return request_.allow_prereleases || request_.allow_prereleases_for.count(name) != 0;
}

// pip's pre-release rule, applied per package name rather than per requirement (pip merges
// the specifiers on a name before filtering): a pre-release can be chosen when a requirement
// on its name admits it by naming a pre-release (`>=1.0.0rc1`) or by having no final release
// that matches. Once admitted it satisfies every requirement it matches; being disfavored,
// it is still chosen only when no final release works. Every requirement counts, not only
// those of the packages finally chosen, which makes this slightly more permissive than pip.
void PrereleasePolicy::admit(const std::vector<DepKey>& keys, const ProviderIndex& providers,
                             const Database& database,
                             const std::vector<SolvableId>& solvable_of_record) {
  for (const DepKey& key : keys) {
    if (key.prerelease_policy) admit_for(key.name, key.providers, *key.specifier);
  }
  // pip also merges several requirements on one name: those of one package, and the roots.
  admit_for_repeated_names(request_.requirements, providers);
  const auto& records = database.records();
  for (RecordId id = 0; id < records.size(); ++id) {
    if (!solvable_of_record[id].is_none() && records[id].kind != RecordKind::system &&
        records[id].requirements.size() > 1) {
      admit_for_repeated_names(records[id].requirements, providers);
    }
  }
}

void PrereleasePolicy::admit_for_repeated_names(const std::vector<Dependency>& dependencies,
                                                const ProviderIndex& providers) {
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
    if (entry.second > 1) admit_for(name, providers.find(name), entry.first);
  }
}

void PrereleasePolicy::admit_for(const std::string& name, const NameProviders* providers,
                                 const core::SpecifierSet& specifier) {
  if (providers == nullptr || !providers->any_prerelease || allows_all(name)) return;
  const std::vector<Provider>& candidates = providers->list;
  const bool admits_prereleases =
      mentions_prerelease(specifier) ||
      std::none_of(candidates.begin(), candidates.end(), [&](const Provider& p) {
        return !p.version->is_prerelease() && specifier.contains(*p.version, true);
      });
  if (!admits_prereleases) return;
  for (const Provider& p : candidates) {
    if (p.version->is_prerelease() && specifier.contains(*p.version, true)) {
      admitted_.insert(p.solvable);
    }
  }
}

}  // namespace bevenv::solver::detail
