#include "lock_forced.hpp"

#include <algorithm>
#include <deque>
#include <iterator>
#include <string_view>
#include <vector>

namespace bevenv::app {
namespace {

// Whether `version` meets every dependency in `dependencies` on `name`: the solver admits no
// provider these reject (its pre-release policy only narrows them further).
bool meets(const std::vector<solver::Dependency>& dependencies, const std::string& name,
           const core::Version& version) {
  return std::all_of(dependencies.begin(), dependencies.end(), [&](const solver::Dependency& d) {
    return d.name != name || d.specifier.contains(version, true);
  });
}

// The names every record of `candidates` requires (a system record requires nothing: its
// requirements are not solved for).
// Views into the records' own names, sorted: the database outlives every use.
std::vector<std::string_view> required_by_all(const solver::Database& database,
                                              const std::set<solver::RecordId>& candidates) {
  std::vector<std::string_view> common;
  std::vector<std::string_view> names;
  std::vector<std::string_view> both;
  bool first = true;
  for (const solver::RecordId id : candidates) {
    const solver::PackageRecord& record = database.record(id);
    names.clear();
    if (record.kind != solver::RecordKind::system) {
      for (const auto& d : record.requirements) names.push_back(d.name);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    if (first) {
      common.swap(names);
      first = false;
    } else {
      both.clear();
      std::set_intersection(common.begin(), common.end(), names.begin(), names.end(),
                            std::back_inserter(both));
      common.swap(both);
    }
    if (common.empty()) break;
  }
  return common;
}

}  // namespace

ForcedPackages::ForcedPackages(const solver::Database& database, const solver::Request& request)
    : database_(database) {
  for (const auto& record : database.records()) {
    for (const auto& provide : record.provides) {
      if (provide.name != record.name) provided_.insert(provide.name);
    }
  }
  std::vector<solver::Dependency> roots = request.requirements;
  for (auto& root : roots) root.name = solver::normalize_package_name(root.name);
  std::deque<std::string> pending;
  for (const auto& root : roots) {
    if (forced_.count(root.name) != 0 || provided_.count(root.name) != 0) continue;
    std::set<solver::RecordId> candidates;
    for (const solver::RecordId id : database.find(root.name)) {
      if (meets(roots, root.name, database.record(id).version)) candidates.insert(id);
    }
    forced_[root.name] = std::move(candidates);
    pending.push_back(root.name);
  }
  // A name every candidate of a forced name requires is forced too; its candidates are the
  // records that meet the requirements of at least one of those candidates. One pass in
  // breadth-first order: a name reached again keeps the candidates it has, a superset.
  while (!pending.empty()) {
    const std::string name = pending.front();
    pending.pop_front();
    // A reference: std::map keeps it valid while names are added below.
    const std::set<solver::RecordId>& parents = forced_[name];
    if (parents.empty()) continue;  // unsolvable: the solve says so
    for (const std::string_view needed_view : required_by_all(database, parents)) {
      const std::string needed(needed_view);
      if (forced_.count(needed) != 0 || provided_.count(needed) != 0) continue;
      std::set<solver::RecordId> candidates;
      for (const solver::RecordId id : database.find(needed)) {
        const core::Version& version = database.record(id).version;
        const bool some_parent_admits =
            std::any_of(parents.begin(), parents.end(), [&](solver::RecordId parent) {
              return meets(database.record(parent).requirements, needed, version);
            });
        if (some_parent_admits && meets(roots, needed, version)) candidates.insert(id);
      }
      forced_[needed] = std::move(candidates);
      pending.push_back(needed);
    }
  }
}

matrix::Truth ForcedPackages::condition(const matrix::PackageCondition& condition) const {
  const std::vector<solver::RecordId> records = database_.find(condition.name);
  const bool any_matches = std::any_of(records.begin(), records.end(), [&](solver::RecordId id) {
    return condition.matches(database_.record(id).version);
  });
  // A solution pins `name` at the version of a record named so, or not at all.
  if (!any_matches) return matrix::Truth::no;
  const auto forced = forced_.find(condition.name);
  if (forced == forced_.end() || forced->second.empty()) return matrix::Truth::unknown;
  std::size_t matching = 0;
  for (const solver::RecordId id : forced->second) {
    if (condition.matches(database_.record(id).version)) ++matching;
  }
  // Installed for certain: at a matching version for certain, or at another for certain.
  if (matching == forced->second.size()) return matrix::Truth::yes;
  return matching == 0 ? matrix::Truth::no : matrix::Truth::unknown;
}

matrix::Truth ForcedPackages::package_conditions(const matrix::Rule& rule) const {
  matrix::Truth all = matrix::Truth::yes;
  for (const auto& c : rule.when_packages) {
    const matrix::Truth one = condition(c);
    if (one == matrix::Truth::no) return matrix::Truth::no;
    if (one == matrix::Truth::unknown) all = matrix::Truth::unknown;
  }
  return all;
}

}  // namespace bevenv::app
