#include <algorithm>

#include "bevenv/core/name.hpp"
#include "checks.hpp"

namespace bevenv::matrix::detail {
namespace {

bool any_version_matches(const Package& package, const core::SpecifierSet& specifier) {
  return std::any_of(package.versions.begin(), package.versions.end(),
                     [&](const PackageVersion& v) { return specifier.contains(v.version, true); });
}

std::string label(const PackageVersion& v) { return "`" + v.id() + "`"; }

}  // namespace

void report(std::vector<Diagnostic>& diagnostics, const Origin& at, std::string message) {
  diagnostics.push_back(Diagnostic{at.file, at.line, at.column, std::move(message)});
}

std::string unmet_reason(const Matrix& matrix, const core::Requirement& requirement) {
  const Package* package = matrix.find_package(requirement.name);
  if (package == nullptr) {
    return "`" + requirement.name + "` is not in the matrix; add a `[[package]]` record for it";
  }
  if (!any_version_matches(*package, requirement.specifier)) {
    return "no version of `" + package->name + "` in the matrix matches `" +
           requirement.specifier.to_string() + "`";
  }
  return {};
}

void check_packages(const Matrix& matrix, std::vector<Diagnostic>& diagnostics) {
  for (const auto& [name, package] : matrix.packages) {
    for (const PackageVersion& version : package.versions) {
      for (const core::Requirement& requirement : version.requirements) {
        const std::string reason = unmet_reason(matrix, requirement);
        if (!reason.empty()) {
          report(diagnostics, version.origin,
                 label(version) + " requires `" + requirement.to_string() + "`, but " + reason);
        }
      }
      if (version.cuda && matrix.find_toolkit(*version.cuda) == nullptr) {
        report(diagnostics, version.origin,
               label(version) + " carries CUDA `" + version.cuda->to_string() +
                   "`, which is not a `[[toolkit]]` in the matrix");
      }
      if (version.build_step && version.build != BuildKind::source) {
        report(diagnostics, version.origin,
               label(version) + " has a `build_step` but `build` is not `\"source\"`");
      }
    }
  }
}

void check_rules(const Matrix& matrix, std::vector<Diagnostic>& diagnostics) {
  for (const Rule& rule : matrix.rules) {
    const std::string name = "rule `" + rule.id + "`";
    for (const PackageCondition& condition : rule.when_packages) {
      const Package* package = matrix.find_package(condition.name);
      if (package == nullptr) {
        report(
            diagnostics, rule.origin,
            name + ": `when.packages` names `" + condition.name + "`, which is not in the matrix");
      } else if (!any_version_matches(*package, condition.specifier)) {
        report(diagnostics, rule.origin,
               name + ": `when` can never hold: no version of `" + condition.name +
                   "` in the matrix matches `" + condition.specifier.to_string() + "`");
      }
    }
    for (const std::string& profile : rule.when_profiles) {
      if (matrix.find_profile(profile) == nullptr) {
        report(diagnostics, rule.origin,
               name + ": `when.profiles` names `" + profile + "`, which is not a profile");
      }
    }
    const Package* then_package = matrix.find_package(rule.then.name);
    if (then_package == nullptr) {
      report(diagnostics, rule.origin,
             name + ": `then` names `" + rule.then.name + "`, which is not in the matrix");
    } else if (!any_version_matches(*then_package, rule.then.specifier)) {
      const std::string consequence = rule.kind == RuleKind::requires_
                                          ? "it forbids its `when`; use `kind = \"conflicts\"`"
                                          : "it can never apply";
      report(diagnostics, rule.origin,
             name + ": no version of `" + then_package->name + "` in the matrix matches `then` `" +
                 rule.then.specifier.to_string() + "`, so " + consequence);
    }
  }
}

void check_observed(const Matrix& matrix, std::vector<Diagnostic>& diagnostics) {
  for (const Observed& record : matrix.observed) {
    if (matrix.find_package(record.package) == nullptr) {
      report(diagnostics, record.origin,
             "observed `" + record.check + "` names `" + record.package +
                 "`, which is not in the matrix");
    }
  }
}

}  // namespace bevenv::matrix::detail
