#include <set>

#include "bevenv/core/marker.hpp"
#include "checks.hpp"

namespace bevenv::matrix::detail {
namespace {

// A requirement applies unless its marker is false for the profile's Python.
bool applies(const core::Requirement& requirement, const core::MarkerEnvironment& env) {
  if (requirement.marker.empty()) return true;
  auto result = requirement.marker.evaluate(env);
  return !result.has_value() || result.value();
}

// Every record an offline profile can reach must list all of its dependencies, or a lock made
// from the matrix alone would miss packages.
void check_offline(const Matrix& matrix, const Profile& profile,
                   std::vector<Diagnostic>& diagnostics) {
  const auto env = core::MarkerEnvironment::linux_cpython(profile.python + ".0");
  std::vector<const core::Requirement*> pending;
  for (const auto& requirement : profile.requirements) pending.push_back(&requirement);
  std::set<std::string> seen;
  std::vector<std::string> curated;
  while (!pending.empty()) {
    const core::Requirement* requirement = pending.back();
    pending.pop_back();
    if (!applies(*requirement, env)) continue;
    const Package* package = matrix.find_package(requirement->name);
    if (package == nullptr) continue;  // reported as a dangling reference
    for (const PackageVersion& version : package->versions) {
      if (!requirement->specifier.contains(version.version, true)) continue;
      if (!seen.insert(version.id()).second) continue;
      if (!version.deps_complete) curated.push_back("`" + version.id() + "`");
      for (const auto& next : version.requirements) pending.push_back(&next);
    }
  }
  if (curated.empty()) return;
  // One message per profile: the first few records are enough to act on.
  std::string named;
  for (std::size_t i = 0; i < curated.size() && i < 3; ++i)
    named += (i == 0 ? "" : ", ") + curated[i];
  if (curated.size() > 3) named += ", ...";
  report(diagnostics, profile.origin,
         "profile `" + profile.name + "` is `offline` but reaches " +
             std::to_string(curated.size()) +
             " records whose dependencies are curated, not "
             "complete: " +
             named + " (list all of their dependencies and set `deps = \"complete\"`)");
}

// A port names the profile it ports and only rules that exist.
void check_port(const Matrix& matrix, const Profile& profile, const std::string& label,
                std::vector<Diagnostic>& diagnostics) {
  if (!profile.port_of.empty() && matrix.find_profile(profile.port_of) == nullptr) {
    report(diagnostics, profile.origin,
           label + ": `port_of` `" + profile.port_of + "` is not a profile");
  }
  if (!profile.lifts.empty() && profile.port_of.empty()) {
    report(diagnostics, profile.origin, label + ": `lifts` needs `port_of` (only a port lifts)");
  }
  for (const auto& id : profile.lifts) {
    if (matrix.find_rule(id) == nullptr) {
      report(diagnostics, profile.origin, label + ": `lifts` names `" + id + "`, not a rule");
    }
  }
}

}  // namespace

void check_profiles(const Matrix& matrix, std::vector<Diagnostic>& diagnostics) {
  for (const auto& [name, profile] : matrix.profiles) {
    const std::string label = "profile `" + name + "`";
    if (profile.python.empty()) {
      report(diagnostics, profile.origin,
             label +
                 ": no `python` (set it or `extends` a profile "
                 "that does)");
    } else if (!core::Version::parse(profile.python)) {
      report(diagnostics, profile.origin,
             label + ": `python` `" + profile.python + "` is not a version such as `3.8`");
    }
    if (!profile.cuda.empty()) {
      auto cuda = core::Version::parse(profile.cuda);
      if (!cuda || matrix.find_toolkit(cuda.value()) == nullptr) {
        report(diagnostics, profile.origin,
               label + ": `cuda` `" + profile.cuda + "` is not a `[[toolkit]]` in the matrix");
      }
    }
    for (const auto& requirement : profile.requirements) {
      const std::string reason = unmet_reason(matrix, requirement);
      if (!reason.empty()) {
        report(diagnostics, profile.origin,
               label + " requires `" + requirement.to_string() + "`, but " + reason);
      }
    }
    for (const auto& preferred : profile.preferred) {
      const std::string reason = unmet_reason(matrix, preferred);
      if (!reason.empty()) {
        report(diagnostics, profile.origin,
               label + " prefers `" + preferred.to_string() + "`, but " + reason);
      }
    }
    for (const auto& step : profile.builds) {
      if (!step.package.empty() && matrix.find_package(step.package) == nullptr) {
        report(diagnostics, step.origin,
               label + ": build `" + step.name + "` produces `" + step.package +
                   "`, which is not in the matrix");
      }
    }
    if (profile.offline) check_offline(matrix, profile, diagnostics);
    check_port(matrix, profile, label, diagnostics);
  }
}

}  // namespace bevenv::matrix::detail
