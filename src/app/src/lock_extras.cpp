// Extras as records of their own, so an offline lock is one solve: `jsonschema[format-nongpl]`
// 4.17.3 becomes the record `__jsonschema[format-nongpl]` 4.17.3, which requires
// `jsonschema ==4.17.3` and what the extra adds, and a requirement naming the extra also requires
// that record. The solver then brings an extra's dependencies exactly when a chosen package asks
// for the extra (uv models extras the same way), instead of each solution telling the next solve
// which extras to carry.
#include "lock_extras.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "bevenv/core/name.hpp"

namespace bevenv::app {
namespace {

constexpr std::string_view kVirtualPrefix = "__";

// Package name -> normalized extra -> the spellings requirements use for it (a marker compares
// the spelling; the record is one per normalized extra).
using WantedExtras = std::map<std::string, std::map<std::string, std::set<std::string>>>;

bool asked_by_request(const ExtrasAsked& request, const std::string& name,
                      const std::string& extra) {
  const auto it = request.find(name);
  return it != request.end() && it->second.count(extra) != 0;
}

// The spellings of the extras in play for a package: asked by the request (its records carry
// them) or standing as records of their own.
std::set<std::string> extras_in_play(const ExtrasAsked& request, const WantedExtras& wanted,
                                     const std::string& name) {
  std::set<std::string> out;
  if (const auto it = request.find(name); it != request.end()) out = it->second;
  if (const auto it = wanted.find(name); it != wanted.end()) {
    for (const auto& [extra, spellings] : it->second)
      out.insert(spellings.begin(), spellings.end());
  }
  return out;
}

bool asks_extras(const matrix::PackageVersion& build) {
  return std::any_of(build.requirements.begin(), build.requirements.end(),
                     [](const core::Requirement& r) { return !r.extras.empty(); });
}

// Every extra a record may ask of a package on this target, beyond those the request asked: the
// requirements that hold plainly or with an extra in play of the asking package. Grows until
// nothing new appears (an extra's own requirements may ask for more extras).
WantedExtras extras_asked_by_records(const Translation& t, TargetMarkers& env) {
  WantedExtras wanted;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [id, build] : t.records) {
      if (!asks_extras(*build)) continue;
      const std::set<std::string> own = extras_in_play(t.extras, wanted, build->name);
      for (const auto& requirement : build->requirements) {
        if (requirement.extras.empty() || !requirement_applies(requirement, &own, env)) continue;
        const std::string name = core::normalize_name(requirement.name);
        for (const auto& extra : requirement.extras) {
          if (asked_by_request(t.extras, name, extra)) continue;
          grew = wanted[name][core::normalize_name(extra)].insert(extra).second || grew;
        }
      }
    }
  }
  return wanted;
}

// The dependencies on extras' records that `requirement` brings beside the one on its package.
std::vector<solver::Dependency> extra_dependencies(const core::Requirement& requirement,
                                                   const WantedExtras& wanted,
                                                   const std::string& origin) {
  std::vector<solver::Dependency> out;
  const std::string name = core::normalize_name(requirement.name);
  const auto package = wanted.find(name);
  if (package == wanted.end()) return out;  // asked by the request: its records carry them
  for (const auto& extra : requirement.extras) {
    if (package->second.count(core::normalize_name(extra)) == 0) continue;
    out.push_back({extra_record_name(name, extra), requirement.specifier, origin});
  }
  return out;
}

// The record of `build` with one extra (all its spellings): the build itself, exactly, and the
// requirements the extra adds to what the build's record carries.
solver::PackageRecord extra_record(const matrix::PackageVersion& build,
                                   const std::set<std::string>& spellings, bool disfavored,
                                   const Translation& t, const WantedExtras& wanted,
                                   TargetMarkers& env) {
  const std::string self = build.name + " " + build.version.to_string();
  solver::PackageRecord record;
  record.name = extra_record_name(build.name, *spellings.begin());
  record.version = build.version;
  record.source = "extra";
  record.disfavored = disfavored;
  record.requirements.push_back(
      {build.name, core::SpecifierSet::parse("==" + build.version.to_string()).value(), self});
  const std::set<std::string>* carried = extras_of(t.extras, build.name);
  for (const auto& requirement : build.requirements) {
    if (requirement_applies(requirement, carried, env)) continue;  // the build's record has it
    if (!requirement_applies(requirement, &spellings, env)) continue;
    record.requirements.push_back(dependency_of(requirement, self));
    for (auto& more : extra_dependencies(requirement, wanted, self))
      record.requirements.push_back(std::move(more));
  }
  return record;
}

}  // namespace

std::string extra_record_name(const std::string& package, const std::string& extra) {
  return std::string(kVirtualPrefix) + package + "[" + core::normalize_name(extra) + "]";
}

std::string extra_as_written(const std::string& record) {
  return record.substr(kVirtualPrefix.size());
}

std::optional<std::string> package_of_extra_record(const std::string& name) {
  if (name.rfind(kVirtualPrefix, 0) != 0 || name.back() != ']') return std::nullopt;
  const auto bracket = name.find('[');
  if (bracket == std::string::npos) return std::nullopt;
  return name.substr(kVirtualPrefix.size(), bracket - kVirtualPrefix.size());
}

void add_extra_records(Translation& t, const LockInputs& inputs) {
  TargetMarkers env(inputs.target.marker_environment());
  const WantedExtras wanted = extras_asked_by_records(t, env);
  if (wanted.empty()) return;
  std::map<std::string, std::vector<solver::RecordId>> by_name;
  for (const auto& [id, build] : t.records) {
    if (wanted.count(build->name) != 0) by_name[build->name].push_back(id);
    if (!asks_extras(*build)) continue;
    // The requirements the record carries that name such extras require their records too.
    const std::string self = build->name + " " + build->version.to_string();
    const std::set<std::string>* carried = extras_of(t.extras, build->name);
    std::vector<solver::Dependency> more;
    for (const auto& requirement : build->requirements) {
      if (requirement.extras.empty() || !requirement_applies(requirement, carried, env)) continue;
      for (auto& dependency : extra_dependencies(requirement, wanted, self))
        more.push_back(std::move(dependency));
    }
    if (!more.empty()) t.database.add_requirements(id, std::move(more));
  }
  for (const auto& [name, extras] : wanted) {
    const auto records = by_name.find(name);
    if (records == by_name.end()) continue;
    for (const solver::RecordId id : records->second) {
      const bool disfavored = t.database.record(id).disfavored;
      for (const auto& [extra, spellings] : extras) {
        auto record = extra_record(*t.records.find(id), spellings, disfavored, t, wanted, env);
        auto& names = t.extra_records[name];
        if (std::find(names.begin(), names.end(), record.name) == names.end())
          names.push_back(record.name);
        t.database.add(std::move(record));
      }
    }
  }
  mirror_to_extra_records(t, t.request.preferred);
}

void mirror_to_extra_records(const Translation& t, std::vector<solver::Preference>& preferences) {
  const std::size_t given = preferences.size();
  for (std::size_t i = 0; i < given; ++i) {
    const auto records = t.extra_records.find(core::normalize_name(preferences[i].name));
    if (records == t.extra_records.end()) continue;
    for (const auto& name : records->second) preferences.push_back({name, preferences[i].versions});
  }
}

void merge_alike_versions(Translation& t) {
  t.request.merge_alike_versions = true;
  auto& later = t.request.later_preferences;
  for (const matrix::Rule* rule : t.conditional_preferences)
    later.push_back({core::normalize_name(rule->then.name), rule->then.specifier});
  mirror_to_extra_records(t, later);
}

}  // namespace bevenv::app
