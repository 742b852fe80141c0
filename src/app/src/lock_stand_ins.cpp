#include "lock_stand_ins.hpp"

#include <algorithm>

#include "bevenv/core/name.hpp"

namespace bevenv::app {

StandIns::StandIns(const solver::Request& request, const std::vector<solver::Preference>& later,
                   const ExtrasAsked& extras)
    : extras_(extras) {
  for (const solver::Dependency& d : request.requirements) add(on(d.name).required, d.specifier);
  for (const solver::ImposedConflict& c : request.conflicts) {
    add(on(c.subject.name).required, c.subject.specifier);
    if (c.other) add(on(c.other->name).required, c.other->specifier);
  }
  for (const auto* list : {&request.preferred, &request.later_preferences, &later}) {
    for (const solver::Preference& p : *list) add(on(p.name).favored, p.versions);
  }
  for (const solver::Preference& p : request.disfavored) add(on(p.name).disfavored, p.versions);
}

void StandIns::add(std::vector<const core::SpecifierSet*>& to, const core::SpecifierSet& set) {
  if (!set.empty()) to.push_back(&set);  // an empty set answers every version alike
}

StandIns::Stated& StandIns::on(const std::string& name) { return on_[core::normalize_name(name)]; }

// The two have the same record but for the version. The solver takes the newest of the most
// favored releases it may install (libsolv: the last favor or disfavor job naming a release
// decides its standing; jobs here only ever favor or disfavor both or the newer more): where
// every requirement admits both or neither, and every preference that favors the older favors
// the newer too and every one that disfavors the newer disfavors the older too, the older is
// never chosen. Pre-releases count as the solver reads them.
bool StandIns::as_good(const Stated& stated, const core::Version& newer,
                       const core::Version& release) {
  const auto holds = [](const core::SpecifierSet* set, const core::Version& v) {
    return set->contains(v, true);
  };
  return std::all_of(stated.required.begin(), stated.required.end(),
                     [&](const auto* set) { return holds(set, newer) == holds(set, release); }) &&
         std::none_of(stated.favored.begin(), stated.favored.end(),
                      [&](const auto* set) { return holds(set, release) && !holds(set, newer); }) &&
         std::none_of(stated.disfavored.begin(), stated.disfavored.end(),
                      [&](const auto* set) { return holds(set, newer) && !holds(set, release); });
}

bool StandIns::leaves_out(const matrix::Package& package, std::size_t index) const {
  const matrix::PackageVersion& release = package.versions[index];
  if (!release.newer_stands_for || extras_.count(package.name) != 0) return false;
  const auto stated = on_.find(package.name);
  if (stated == on_.end()) return true;
  // The newer releases of its run: up to and with the nearest one not itself stood for.
  for (std::size_t newer = index + 1; newer < package.versions.size(); ++newer) {
    if (as_good(stated->second, package.versions[newer].version, release.version)) return true;
    if (!package.versions[newer].newer_stands_for) break;
  }
  return false;
}

bool StandIns::keeps_one_of(const matrix::Matrix& matrix) const {
  for (const auto& [name, stated] : on_) {
    const matrix::Package* package = matrix.find_package(name);
    if (package != nullptr && extras_.count(package->name) == 0 && keeps_one_of(*package, stated))
      return true;
  }
  return std::any_of(extras_.begin(), extras_.end(), [&](const auto& asked) {
    const matrix::Package* package = matrix.find_package(asked.first);
    return package != nullptr && !package->stood_for.empty();
  });
}

bool StandIns::keeps_one_of(const matrix::Package& package, const Stated& stated) {
  const std::vector<core::Version>& left = package.stood_for;
  auto loaded = package.versions.begin();
  for (std::size_t i = 0; i < left.size(); ++i) {
    // Its run: the releases left out after it, up to the nearest loaded one above it, and that.
    while (loaded != package.versions.end() && !(left[i] < loaded->version)) ++loaded;
    const bool below_loaded = loaded != package.versions.end();
    bool stood_in = below_loaded && as_good(stated, loaded->version, left[i]);
    for (std::size_t j = i + 1; !stood_in && j < left.size(); ++j) {
      if (below_loaded && !(left[j] < loaded->version)) break;
      stood_in = as_good(stated, left[j], left[i]);
    }
    if (!stood_in) return true;
  }
  return false;
}

}  // namespace bevenv::app
