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
  std::erase_if(pins_, [&](const auto& pinned) {
    const matrix::Package* package = matrix.find_package(pinned.first);
    if (package == nullptr) return true;
    const auto& versions = package->versions;
    // No version left: the solve explains that as it would with all of them.
    const bool none = std::none_of(versions.begin(), versions.end(), [&](const auto& build) {
      return admits_all(pinned.second, build.version);
    });
    // pip's pre-release rule, which the solver applies to every requirement on a name, depends
    // on which final releases exist: one left out could let another requirement take a
    // pre-release the roots admit. Such a name is left whole.
    const bool prerelease = std::any_of(versions.begin(), versions.end(), [&](const auto& build) {
      return build.version.is_prerelease() && admits_all(pinned.second, build.version);
    });
    return none || prerelease;
  });
}

bool RootPins::rules_out(const matrix::PackageVersion& build) const {
  const auto pinned = pins_.find(build.name);
  return pinned != pins_.end() && !admits_all(pinned->second, build.version);
}

}  // namespace bevenv::app
