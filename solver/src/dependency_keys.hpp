#pragma once
// The dependencies of one solve as libsolv sees them: one namespace relation per distinct
// (name, specifier, policy), whose argument string leads back to a key that says which
// solvables satisfy it. libsolv asks through the pool's namespace callback (resolve()).
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bevenv/solver/database.hpp"
#include "provider_index.hpp"
#include "solv/ids.hpp"
#include "solv/pool.hpp"

namespace bevenv::solver::detail {

class PrereleasePolicy;

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

class DependencyKeys {
 public:
  // `providers` must be complete (sorted by version) before the first key is made.
  DependencyKeys(solv::PackagePool& pool, const ProviderIndex& providers)
      : pool_(pool), providers_(providers) {}
  DependencyKeys(const DependencyKeys&) = delete;
  DependencyKeys& operator=(const DependencyKeys&) = delete;

  // The relation for `dependency`, made on first use. `lasting`: `dependency` outlives these
  // keys (it is the Database's or the Request's), so its specifier need not be copied.
  DepId dep_of(const Dependency& dependency, bool prerelease_policy, bool lasting);

  const DepKey& key_of(DepId dep) const;
  bool is_known(DepId dep) const { return key_index(dep) != no_key; }
  const std::vector<DepKey>& all() const { return keys_; }

  // The solvables that satisfy the key whose argument is `argument`, in the order the
  // providers were added (libsolv breaks some ties by it).
  std::vector<SolvableId> resolve(StringId argument, const PrereleasePolicy& prereleases) const;

 private:
  static constexpr std::uint32_t no_key = 0xffffffffu;
  // A lasting dependency as dep_of() was asked it: its specifier set by identity (sets copied
  // from one list share it), its name as written, the policy.
  struct Asked {
    const void* specifier;
    std::string_view name;
    bool prerelease_policy;
    bool operator==(const Asked&) const = default;
  };
  struct AskedHash {
    std::size_t operator()(const Asked& a) const {
      return std::hash<std::string_view>{}(a.name) ^ (std::hash<const void*>{}(a.specifier) << 1) ^
             static_cast<std::size_t>(a.prerelease_policy);
    }
  };
  DepId make_dep(const Dependency& dependency, bool prerelease_policy, bool lasting);
  std::uint32_t key_index(DepId dep) const;
  static void bound_candidates(DepKey& key);

  solv::PackagePool& pool_;
  const ProviderIndex& providers_;
  std::vector<DepKey> keys_;
  std::deque<core::SpecifierSet> owned_specifiers_;  // of keys made from temporaries
  std::vector<std::uint32_t> key_of_argument_;       // by the argument's string id
  std::string scratch_;                              // dep_of's text, reused
  // dep_of()'s answers to lasting dependencies: a lock asks five thousand times for nine hundred
  // relations (a package's releases repeat one requirement, sharing its specifier list).
  std::unordered_map<Asked, DepId, AskedHash> asked_;
};

}  // namespace bevenv::solver::detail
