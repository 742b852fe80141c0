#include "lock_root_pins.hpp"

#include <algorithm>

namespace bevenv::app {
namespace {

using Specifiers = std::vector<const core::SpecifierSet*>;

// Pre-releases count as admitted: the solver's pre-release rule only admits fewer.
bool admits_all(const Specifiers& specifiers, const core::Version& version) {
  return std::all_of(specifiers.begin(), specifiers.end(),
                     [&](const core::SpecifierSet* s) { return s->contains(version, true); });
}

}  // namespace

RootPins::RootPins(const solver::Request& request, const matrix::Matrix& matrix) {
  for (const solver::Dependency& root : request.requirements) {
    if (!root.specifier.empty()) pins_[root.name].push_back(&root.specifier);
  }
  // A name is left whole where the roots admit no version (the solve then explains that as it
  // would with all of them) or a pre-release: pip's pre-release rule, which the solver applies to
  // every requirement on a name, depends on which final releases exist, so one left out could
  // let another requirement take that pre-release.
  std::erase_if(pins_, [&](const auto& pinned) {
    const matrix::Package* package = matrix.find_package(pinned.first);
    if (package == nullptr) return true;
    bool admits_any = false;
    for (const matrix::PackageVersion& build : package->versions) {
      if (!admits_all(pinned.second, build.version)) continue;
      if (build.version.is_prerelease()) return true;
      admits_any = true;
    }
    return !admits_any;
  });
}

bool RootPins::rules_out(const matrix::PackageVersion& build) const {
  const auto pinned = pins_.find(build.name);
  return pinned != pins_.end() && !admits_all(pinned->second, build.version);
}

}  // namespace bevenv::app
