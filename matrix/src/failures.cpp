// The failure catalogue's lookups: which fix fits an environment, and the catalogue by id.
#include <algorithm>

#include "bevenv/matrix/model.hpp"

namespace bevenv::matrix {

bool FixContext::holds(const EnvCondition& condition) const {
  if (condition.python && python && !condition.python->contains(*python, true)) return false;
  for (const PackageCondition& package : condition.packages) {
    const auto installed = packages.find(package.name);
    if (installed == packages.end()) {
      // Not installed is a fact only where the installed set is known.
      if (packages_known) return false;
      continue;
    }
    if (!package.matches(installed->second)) return false;
  }
  return true;
}

bool Failure::can_happen(const FixContext& context) const {
  if (!context.holds(applies)) return false;
  return applies_any.empty() ||
         std::any_of(applies_any.begin(), applies_any.end(),
                     [&context](const EnvCondition& c) { return context.holds(c); });
}

const FailureFix* Failure::fix_for(const FixContext& context) const {
  for (const FailureFix& fix : fixes) {
    if (context.holds(fix.when)) return &fix;
  }
  return nullptr;
}

const Failure* Matrix::find_failure(std::string_view id) const {
  auto it = std::lower_bound(
      failures.begin(), failures.end(), id,
      [](const Failure& failure, std::string_view key) { return failure.id < key; });
  return it != failures.end() && it->id == id ? &*it : nullptr;
}

}  // namespace bevenv::matrix
