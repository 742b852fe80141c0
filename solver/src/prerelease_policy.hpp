#pragma once
// pip's pre-release rule for one solve: which pre-release solvables a requirement admits,
// decided once every dependency key exists and before libsolv first asks what satisfies one.
#include <string>
#include <unordered_set>
#include <vector>

#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"
#include "dependency_keys.hpp"
#include "provider_index.hpp"
#include "solv/ids.hpp"

namespace bevenv::solver::detail {

class PrereleasePolicy {
 public:
  explicit PrereleasePolicy(const Request& request) : request_(request) {}

  // Whether the request allows every pre-release of `name` (--prerelease, per name or all).
  bool allows_all(const std::string& name) const;
  // Whether `solvable` is a pre-release some requirement admits (see admit()).
  bool admits(SolvableId solvable) const { return admitted_.count(solvable) != 0; }

  // Applies the rule to every key, and to the requirements that name one package twice (the
  // request's and those of each record in the pool: `solvable_of_record` none where not).
  void admit(const std::vector<DepKey>& keys, const ProviderIndex& providers,
             const Database& database, const std::vector<SolvableId>& solvable_of_record);

 private:
  void admit_for(const std::string& name, const NameProviders* providers,
                 const core::SpecifierSet& specifier);
  void admit_for_repeated_names(const std::vector<Dependency>& dependencies,
                                const ProviderIndex& providers);

  const Request& request_;
  std::unordered_set<SolvableId> admitted_;
};

}  // namespace bevenv::solver::detail
