#include <algorithm>

#include "bevenv/core/name.hpp"
#include "checks.hpp"

namespace bevenv::matrix::detail {
namespace {

// The least version a match can have. Every match of `>=V`, `>V`, `~=V` or a non-wildcard
// `==V` is at least V in PEP 440 order (they compare the public version, and a local part only
// raises a version), so a scan of the ascending versions can start there.
const core::Version* least_match(const core::SpecifierSet& specifier) {
  const core::Version* least = nullptr;
  for (const core::Specifier& item : specifier.specifiers()) {
    const core::Operator op = item.op();
    const bool bounds_below = op == core::Operator::greater_equal ||
                              op == core::Operator::greater || op == core::Operator::compatible ||
                              (op == core::Operator::equal && !item.is_wildcard());
    if (!bounds_below || !item.version()) continue;
    if (least == nullptr || *least < *item.version()) least = &*item.version();
  }
  return least;
}

bool any_version_matches(const Package& package, const core::SpecifierSet& specifier) {
  auto first = package.versions.begin();
  if (const core::Version* least = least_match(specifier)) {
    first = std::lower_bound(
        first, package.versions.end(), *least,
        [](const PackageVersion& v, const core::Version& bound) { return v.version < bound; });
  }
  return std::any_of(first, package.versions.end(),
                     [&](const PackageVersion& v) { return specifier.contains(v.version, true); });
}

std::string label(const PackageVersion& v) { return "`" + v.id() + "`"; }

}  // namespace

void report(std::vector<Diagnostic>& diagnostics, const Origin& at, std::string message) {
  diagnostics.push_back(Diagnostic{at.file.str(), at.line, at.column, std::move(message)});
}

namespace {

// unmet_reason once the package is looked up (null: not in the matrix).
std::string unmet_reason_in(const Package* package, const core::Requirement& requirement) {
  if (package == nullptr) {
    return "`" + requirement.name + "` is not in the matrix; add a `[[package]]` record for it";
  }
  if (!any_version_matches(*package, requirement.specifier)) {
    return "no version of `" + package->name + "` in the matrix matches `" +
           requirement.specifier.to_string() + "`";
  }
  return {};
}

}  // namespace

std::string unmet_reason(const Matrix& matrix, const core::Requirement& requirement) {
  return unmet_reason_in(matrix.find_package(requirement.name), requirement);
}

void check_packages(const Matrix& matrix, std::vector<Diagnostic>& diagnostics, bool known_only) {
  // Neighbouring versions tend to require the same packages, spelled the same way.
  const std::string* last_spelling = nullptr;
  const Package* last_package = nullptr;
  for (const auto& [name, package] : matrix.packages) {
    for (const PackageVersion& version : package.versions) {
      for (const core::Requirement& requirement : version.requirements) {
        if (last_spelling == nullptr || *last_spelling != requirement.name) {
          last_package = matrix.find_package(requirement.name);
          last_spelling = &requirement.name;
        }
        // A generated record's bound may fall outside the releases the snapshot kept (it keeps the
        // newest of each specifier): the solver skips that release, nothing is wrong.
        if (version.generated && last_package != nullptr) continue;
        // Without the generated layer (the snapshot, a curated-only load) a name or a version a
        // curated record requires may be one only the next snapshot brings.
        if (!known_only) continue;
        const std::string reason = unmet_reason_in(last_package, requirement);
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

void check_rules(const Matrix& matrix, std::vector<Diagnostic>& diagnostics, bool known_only) {
  for (const Rule& rule : matrix.rules) {
    const std::string name = "rule `" + rule.id + "`";
    for (const PackageCondition& condition : rule.when_packages) {
      const Package* package = matrix.find_package(condition.name);
      if (!known_only) break;  // the snapshot may be what brings those releases
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
    // While the snapshot reads, the releases a rule's `then` needs may be what it is reading.
    if (!known_only) continue;
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

void check_failures(Matrix& matrix, std::vector<Diagnostic>& diagnostics) {
  for (const Failure& failure : matrix.failures) {
    for (const std::string& id : failure.prevented_by) {
      if (matrix.find_rule(id) == nullptr) {
        report(
            diagnostics, failure.origin,
            "failure `" + failure.id + "`: `prevented_by` names `" + id + "`, which is not a rule");
      }
    }
  }
  for (Rule& rule : matrix.rules) {
    if (rule.failure.empty()) continue;
    const Failure* failure = matrix.find_failure(rule.failure);
    // A matrix without a catalogue (an overlay loaded alone, a test's few records) cannot say
    // which ids exist; one with a catalogue must hold every id its rules name.
    if (failure == nullptr) {
      if (!matrix.failures.empty()) {
        report(diagnostics, rule.origin,
               "rule `" + rule.id + "`: `failure` names `" + rule.failure +
                   "`, which is not a `[[failure]]` (matrix/data/failures.toml)");
      }
      continue;
    }
    if (rule.fix.empty() && !failure->fixes.empty()) rule.fix = failure->fixes.front().text;
  }
  for (const Rule& rule : matrix.rules) {
    if (rule.fix.empty()) {
      report(diagnostics, rule.origin,
             "rule `" + rule.id + "`: needs `fix`, or a `failure` whose fixes say it");
    }
  }
}

}  // namespace bevenv::matrix::detail
