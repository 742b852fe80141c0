#pragma once
// Which solvables answer to each package name, and at which version. Dependency keys narrow
// their candidates in it, the pre-release policy looks through it and explanations list the
// versions a name has; it is built once, while the pool is filled.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "bevenv/core/version.hpp"
#include "solv/ids.hpp"

namespace bevenv::solver::detail {

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

class ProviderIndex {
 public:
  void add(const std::string& name, Provider provider) { by_name_[name].list.push_back(provider); }
  // Orders each name's providers by version; call once every solvable is added.
  void sort_by_version();

  // Null when nothing answers to `name`.
  const NameProviders* find(const std::string& name) const;
  // Empty when nothing answers to `name`.
  const std::vector<Provider>& list(const std::string& name) const;

 private:
  std::unordered_map<std::string, NameProviders> by_name_;
};

}  // namespace bevenv::solver::detail
