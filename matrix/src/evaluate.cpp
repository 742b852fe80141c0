#include "bevenv/matrix/evaluate.hpp"

#include <algorithm>

#include "bevenv/core/name.hpp"

namespace bevenv::matrix {
namespace {

// Combines condition results: any `no` decides; otherwise any `unknown` leaves it open.
struct Conjunction {
  Truth value = Truth::yes;
  void add(Truth t) {
    if (value == Truth::no || t == Truth::yes) return;
    value = t;
  }
};

Truth fact_in(const std::optional<std::string>& fact, const std::vector<std::string>& allowed) {
  if (allowed.empty()) return Truth::yes;
  if (!fact) return Truth::unknown;
  return std::find(allowed.begin(), allowed.end(), *fact) != allowed.end() ? Truth::yes : Truth::no;
}

Truth version_in(const std::optional<core::Version>& fact,
                 const std::optional<core::SpecifierSet>& specifier) {
  if (!specifier) return Truth::yes;
  if (!fact) return Truth::unknown;
  return specifier->contains(*fact, true) ? Truth::yes : Truth::no;
}

}  // namespace

Truth when_holds(const Rule& rule, const Selection& selection) {
  Conjunction all;
  for (const PackageCondition& condition : rule.when_packages) {
    auto pin = selection.pins.find(condition.name);
    all.add(pin != selection.pins.end() && condition.matches(pin->second) ? Truth::yes : Truth::no);
  }
  if (!rule.when_profiles.empty()) {
    const bool inside =
        selection.profile != nullptr &&
        std::any_of(rule.when_profiles.begin(), rule.when_profiles.end(),
                    [&](const std::string& p) { return selection.profile->is_a(p); });
    all.add(inside ? Truth::yes : Truth::no);
  }
  const TargetFacts& target = selection.target;
  all.add(version_in(target.python, rule.when_target.python));
  all.add(version_in(target.cuda_driver, rule.when_target.cuda_driver));
  all.add(fact_in(target.gpu_arch, rule.when_target.gpu_arch));
  all.add(fact_in(target.platform, rule.when_target.platform));
  return all.value;
}

bool then_holds(const Rule& rule, const Selection& selection) {
  auto pin = selection.pins.find(rule.then.normalized_name());
  return pin != selection.pins.end() && rule.then.specifier.contains(pin->second, true);
}

Verdict check_rule(const Rule& rule, const Selection& selection) {
  const Truth when = when_holds(rule, selection);
  if (when == Truth::no) return Verdict::not_applicable;
  const bool then = then_holds(rule, selection);
  bool violated = false;
  switch (rule.kind) {
    case RuleKind::requires_:
      violated = !then;
      break;
    case RuleKind::conflicts:
      violated = then;
      break;
    case RuleKind::prefer:
      violated = !then;
      break;
  }
  if (when == Truth::unknown) return violated ? Verdict::undecided : Verdict::satisfied;
  if (!violated) return Verdict::satisfied;
  return rule.kind == RuleKind::prefer ? Verdict::preference_unmet : Verdict::violated;
}

std::vector<const PackageVersion*> matching_versions(const Matrix& matrix,
                                                     const PackageCondition& condition) {
  std::vector<const PackageVersion*> out;
  if (const Package* package = matrix.find_package(condition.name)) {
    for (const auto& version : package->versions) {
      if (condition.matches(version.version)) out.push_back(&version);
    }
  }
  return out;
}

}  // namespace bevenv::matrix
