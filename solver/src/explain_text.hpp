#pragma once
// The words of explanations: each reason a candidate fails, phrased once its subject (the
// package and the versions that share the reason) is known.
#include <string>
#include <vector>

#include "bevenv/solver/solution.hpp"
#include "dependency_keys.hpp"

namespace bevenv::solver::detail {

struct Reason {
  StepKind kind = StepKind::other;
  std::string dependency;  // for requires_
  std::vector<std::string> origins;
  std::string other_name;  // for conflicts and same_name
  std::vector<std::string> other_versions;
  bool other_is_system = false;
  std::vector<ExplanationStep> children;

  static Reason forbidden(std::vector<std::string> origins);
  static Reason requires_(std::string dependency, std::string origin,
                          std::vector<ExplanationStep> children);
  static Reason conflict(StepKind kind, std::string other_name);

  // `single_pin`: the subject is the one package an `==` line above named, so "which" will do.
  // `whole_range`: the subject covers every candidate of the dependency above.
  ExplanationStep to_step(const std::string& name, const std::vector<std::string>& versions,
                          bool single_pin, bool whole_range) const;
};

struct CandidateGroup {
  std::string signature;
  std::string name;
  std::vector<std::string> versions;
  std::vector<Reason> reasons;
};

// Identical for reasons that would print identically, whatever their subject.
std::string signature_of(const std::vector<Reason>& reasons);

ExplanationStep wants_step(const Dependency& root, const DepKey& key);
// `only_system`: every version of the name is a system record (`__cuda` on this host).
ExplanationStep nothing_matches_step(const DepKey& key, const std::vector<std::string>& available,
                                     bool only_system);
bool is_exact_pin(const core::SpecifierSet& specifier);
std::vector<std::string> render_lines(const std::vector<ExplanationStep>& steps);

}  // namespace bevenv::solver::detail
