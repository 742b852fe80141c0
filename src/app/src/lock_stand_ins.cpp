#include "lock_stand_ins.hpp"

#include <algorithm>

#include "bevenv/core/name.hpp"

namespace bevenv::app {

StandIns::StandIns(const solver::Request& request, const std::vector<solver::Preference>& later,
                   const ExtrasAsked& extras)
    : extras_(extras) {
  for (const solver::Dependency& d : request.requirements) add(d.name, d.specifier);
  for (const solver::ImposedConflict& c : request.conflicts) {
    add(c.subject.name, c.subject.specifier);
    if (c.other) add(c.other->name, c.other->specifier);
  }
  for (const auto* list :
       {&request.preferred, &request.disfavored, &request.later_preferences, &later}) {
    for (const solver::Preference& p : *list) add(p.name, p.versions);
  }
}

void StandIns::add(const std::string& name, const core::SpecifierSet& set) {
  if (set.empty()) return;  // answers every version alike
  on_[core::is_normalized_name(name) ? name : core::normalize_name(name)].push_back(&set);
}

bool StandIns::leaves_out(const matrix::Package& package, std::size_t index) const {
  const matrix::PackageVersion& release = package.versions[index];
  if (!release.newer_stands_for || extras_.count(package.name) != 0) return false;
  const auto specifiers = on_.find(package.name);
  if (specifiers == on_.end()) return true;
  // As the solver reads them, pre-releases included.
  const auto answer_alike = [&](const core::Version& newer) {
    return std::none_of(specifiers->second.begin(), specifiers->second.end(),
                        [&](const core::SpecifierSet* set) {
                          return set->contains(newer, true) != set->contains(release.version, true);
                        });
  };
  // The releases of its run (up to the nearest newer one not itself stood for) are alike to it
  // and the matrix's specifiers answer them alike: a newer one that this lock's specifiers
  // answer alike too stands for it (a replaced lock's pin on the newest still leaves one).
  for (std::size_t newer = index + 1; newer < package.versions.size(); ++newer) {
    if (answer_alike(package.versions[newer].version)) return true;
    if (!package.versions[newer].newer_stands_for) break;
  }
  return false;
}

}  // namespace bevenv::app
