#include "dependency_keys.hpp"

#include <algorithm>
#include <stdexcept>

#include "bevenv/core/name.hpp"
#include "prerelease_policy.hpp"

namespace bevenv::solver::detail {

DepId DependencyKeys::dep_of(const Dependency& dependency, bool prerelease_policy, bool lasting) {
  // Only a lasting set's identity can stand for it: a temporary's may be reused by another set.
  if (!lasting) return make_dep(dependency, prerelease_policy, lasting);
  const Asked asked{dependency.specifier.identity(), dependency.name, prerelease_policy};
  auto [at, added] = asked_.try_emplace(asked);
  if (added) at->second = make_dep(dependency, prerelease_policy, lasting);
  return at->second;
}

DepId DependencyKeys::make_dep(const Dependency& dependency, bool prerelease_policy, bool lasting) {
  // The specifiers as written, in order: cheap to build (no canonical sort) and it reads
  // better in explanations (`>=1.3.8,<=1.4.0`). Equal sets written differently merely get
  // two relations with the same answer.
  // Written into one reused buffer: most dependencies name a key made already.
  std::string& display = scratch_;
  display.clear();
  if (core::is_normalized_name(dependency.name)) {
    display += dependency.name;
  } else {
    display += normalize_package_name(dependency.name);
  }
  const std::size_t name_length = display.size();
  const auto& specifiers = dependency.specifier.specifiers();
  for (std::size_t i = 0; i < specifiers.size(); ++i) {
    display += i == 0 ? ' ' : ',';
    display += operator_text(specifiers[i].op());
    display += specifiers[i].version_text();
  }
  if (!prerelease_policy) display += " (any)";
  const StringId argument = pool_.intern(display);
  if (!prerelease_policy) display.resize(display.size() - std::string_view(" (any)").size());
  const std::size_t slot = argument.index();
  if (slot >= key_of_argument_.size()) {
    key_of_argument_.resize(std::max(slot + 1, pool_.string_count()), no_key);
  }
  if (key_of_argument_[slot] == no_key) {
    key_of_argument_[slot] = static_cast<std::uint32_t>(keys_.size());
    const core::SpecifierSet* specifier = &dependency.specifier;
    if (!lasting) specifier = &owned_specifiers_.emplace_back(dependency.specifier);
    std::string name = display.substr(0, name_length);
    const NameProviders* providers = providers_.find(name);
    DepKey& key = keys_.emplace_back(
        DepKey{std::move(name), specifier, providers, prerelease_policy, display});
    bound_candidates(key);
  }
  return pool_.namespace_dep(argument);
}

// `>=` holds on a suffix of the versions in PEP 440 order and `<=` (which compares public
// versions) on a prefix, so they narrow the candidates by binary search; resolve() checks the
// other specifiers (contains(v, true) is every specifier matching) on what is left.
void DependencyKeys::bound_candidates(DepKey& key) {
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

std::vector<SolvableId> DependencyKeys::resolve(StringId argument,
                                                const PrereleasePolicy& prereleases) const {
  const std::size_t slot = argument.index();
  if (slot >= key_of_argument_.size() || key_of_argument_[slot] == no_key) return {};
  const DepKey& key = keys_[key_of_argument_[slot]];
  const bool any_prerelease = !key.prerelease_policy || prereleases.allows_all(key.name);
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
        !prereleases.admits(provider.solvable)) {
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

std::uint32_t DependencyKeys::key_index(DepId dep) const {
  const StringId argument = pool_.namespace_argument(dep);
  const std::size_t slot = argument.index();
  return argument.is_none() || slot >= key_of_argument_.size() ? no_key : key_of_argument_[slot];
}

const DepKey& DependencyKeys::key_of(DepId dep) const {
  const std::uint32_t index = key_index(dep);
  if (index == no_key) throw std::out_of_range("not a dependency of this universe");
  return keys_[index];
}

}  // namespace bevenv::solver::detail
