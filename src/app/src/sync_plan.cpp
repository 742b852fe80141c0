// The sync plan: the lock against what a venv holds, as a list of changes. Pure: no files, no
// processes, so that tests can check every case with made-up installed sets.
#include <map>
#include <set>

#include "bevenv/app/sync.hpp"
#include "bevenv/core/marker.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/core/version.hpp"
#include "bevenv/lockfiles/export.hpp"
#include "doctor_internal.hpp"

namespace bevenv::app {
namespace {

using lockfiles::BuildStep;
using lockfiles::Package;

// A locked package applies here unless its marker is false for the lock's target; a marker that
// cannot be evaluated counts as true, so that sync installs rather than silently skips.
bool applies(const Package& p, const core::MarkerEnvironment& env) {
  if (!p.markers) return true;
  const auto marker = core::Marker::parse(*p.markers);
  if (!marker) return true;
  const auto value = marker.value().evaluate(env);
  return !value || value.value();
}

core::MarkerEnvironment marker_environment(const lockfiles::Target& target) {
  std::string machine = "x86_64";
  if (target.platform.starts_with("linux_")) machine = target.platform.substr(6);
  return core::MarkerEnvironment::linux_cpython(target.python, machine);
}

ChangeKind kind_of(const std::string& installed, const std::string& locked) {
  const auto have = core::Version::parse(installed);
  const auto want = core::Version::parse(locked);
  if (!have || !want) return ChangeKind::reinstall;
  // Another local build of the same release (`+cpu` for `+cu113`) is a switch, not an upgrade,
  // although PEP 440 orders local labels.
  if (have.value().without_local() == want.value().without_local()) return ChangeKind::reinstall;
  if (have.value() < want.value()) return ChangeKind::upgrade;
  if (want.value() < have.value()) return ChangeKind::downgrade;
  return ChangeKind::reinstall;
}

// Distributions a venv needs to install anything: pip always stays, setuptools and wheel stay
// unless the lock pins them (then they are compared like any other package).
bool kept_when_unlocked(const std::string& normalized) {
  return normalized == "pip" || normalized == "setuptools" || normalized == "wheel";
}

using Builds = std::map<std::string, const BuildStep*>;

Builds builds_by_package(const lockfiles::Lockfile& lock) {
  Builds out;
  for (const BuildStep& b : lock.builds)
    if (!b.package.empty()) out[core::normalize_name(b.package)] = &b;
  return out;
}

// How a locked package reaches the venv: its build step, else pip with or without hashes.
void set_route(PlannedChange& change, const Package& p, const Builds& builds,
               std::set<const BuildStep*>& to_run, SyncPlan& plan) {
  const auto it = builds.find(core::normalize_name(p.name));
  if (it == builds.end()) {
    change.via = lockfiles::hash_checkable(p) ? "hashed" : "unhashed";
    return;
  }
  change.build = it->second->name;
  if (it->second->source || it->second->vcs) {
    change.via = "build";
    to_run.insert(it->second);
  } else {
    change.via = "none";
    plan.builds_not_run.push_back(it->second->name);
  }
}

void plan_removals(const std::map<std::string, InstalledDist>& installed,
                   const std::set<std::string>& locked, SyncPlan& plan) {
  for (const auto& [normalized, dist] : installed) {
    if (locked.contains(normalized)) continue;
    if (kept_when_unlocked(normalized)) {
      plan.kept.push_back(dist.name);
      continue;
    }
    plan.changes.push_back({ChangeKind::remove, dist.name, dist.version, "", "uninstall", ""});
  }
}

}  // namespace

bool SyncPlan::in_sync() const { return changes.empty(); }

SyncPlan plan_sync(const lockfiles::Lockfile& lock, const std::vector<InstalledDist>& installed) {
  SyncPlan plan;
  std::map<std::string, InstalledDist> by_name;
  for (const InstalledDist& d : installed) by_name.emplace(core::normalize_name(d.name), d);
  const auto env = marker_environment(lock.target);
  std::vector<const Package*> locked;
  std::set<std::string> locked_names;
  for (const Package& p : lock.packages) {
    if (!applies(p, env)) {
      plan.behind_markers.push_back(p.name);
      continue;
    }
    locked.push_back(&p);
    locked_names.insert(core::normalize_name(p.name));
  }
  plan_removals(by_name, locked_names, plan);

  const Builds builds = builds_by_package(lock);
  std::set<const BuildStep*> to_run;
  for (const Package* p : locked) {
    const auto found = by_name.find(core::normalize_name(p->name));
    if (found != by_name.end() && doctor_detail::same_version(found->second.version, *p)) {
      ++plan.unchanged;
      continue;
    }
    PlannedChange change{ChangeKind::install, p->name, "", p->version, "", ""};
    if (found != by_name.end()) {
      change.installed = found->second.version;
      change.kind = kind_of(change.installed, p->version);
    }
    set_route(change, *p, builds, to_run, plan);
    plan.changes.push_back(std::move(change));
  }
  for (const BuildStep& b : lock.builds) {
    if (to_run.contains(&b)) plan.builds.push_back(&b);
    if (b.package.empty()) plan.builds_not_run.push_back(b.name);
  }
  return plan;
}

std::string plan_summary(const SyncPlan& plan) {
  struct Group {
    ChangeKind kind;
    const char* word;
    bool list;  // name the changes in parentheses (installs are too many to name)
  };
  static constexpr Group kGroups[] = {{ChangeKind::install, "install", false},
                                      {ChangeKind::upgrade, "upgrade", true},
                                      {ChangeKind::downgrade, "downgrade", true},
                                      {ChangeKind::reinstall, "reinstall", true},
                                      {ChangeKind::remove, "remove", true}};
  std::string out;
  for (const Group& g : kGroups) {
    std::size_t count = 0;
    std::string named;
    for (const PlannedChange& c : plan.changes) {
      if (c.kind != g.kind) continue;
      if (++count > 3) continue;
      named += (named.empty() ? "" : ", ") + c.name + " " + c.installed;
      if (!c.locked.empty() && !c.installed.empty()) named += " → " + c.locked;
    }
    if (count == 0) continue;
    if (count > 3) named += ", …";
    out += (out.empty() ? "" : ", ") + std::string(g.word) + " " + std::to_string(count);
    if (g.list) out += " (" + named + ")";
  }
  return out.empty() ? "nothing to do" : out;
}

}  // namespace bevenv::app
