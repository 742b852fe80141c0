#pragma once
// Results of solve(): a chosen set with the reasons each package is in it, or an explanation
// of why no set exists.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/core/version.hpp"
#include "bevenv/solver/database.hpp"

namespace bevenv::solver {

// One reason a package is present: a root requirement (`from` empty) or a requirement of
// another chosen package (`from` = its index in Solution::packages).
struct WhyLink {
  std::optional<std::size_t> from;
  Dependency dependency;
};

// A requirement of a chosen package and the chosen packages that satisfy it.
struct DependencyEdge {
  Dependency dependency;
  std::vector<std::size_t> satisfied_by;  // indexes in Solution::packages
};

struct ChosenPackage {
  RecordId record = 0;
  std::string name;
  core::Version version;
  bool is_system = false;  // a system record (virtual package or preinstalled)
  std::vector<DependencyEdge> dependencies;
  std::vector<WhyLink> required_by;  // every incoming edge
  std::vector<WhyLink> chain;        // the shortest path from the request, root first
};

struct Solution {
  std::vector<ChosenPackage> packages;  // sorted by name
  const ChosenPackage* find(const std::string& name) const;
};

enum class StepKind : unsigned char {
  wants,            // a root requirement
  requires_,        // a package requires a dependency
  nothing_matches,  // no package satisfies a dependency
  conflicts,        // packages that cannot be installed together (declared or imposed)
  same_name,        // two versions of one package are needed
  forbidden,        // the request forbids these versions
  other,            // anything else libsolv reports, in its own words
};

// A node of the explanation tree: `text` is the rendered sentence; the other fields carry
// the same facts for JSON output.
struct ExplanationStep {
  StepKind kind = StepKind::other;
  std::string text;
  std::string package;                // the package the step is about
  std::vector<std::string> versions;  // its versions involved
  std::string dependency;             // `name specifier` of the dependency, when there is one
  std::string other_package;          // the other side of a conflict
  std::vector<std::string> other_versions;
  std::string origin;  // origin label(s) of the requirement/conflict
  std::vector<ExplanationStep> children;
};

// One independent reason the request fails, as a forest of chains.
struct Problem {
  std::vector<ExplanationStep> steps;
};

struct Unsolvable {
  std::vector<Problem> problems;
};

// `1.0 | 1.1`, or `1.0 | 1.1 | … | 2.0 (9 versions)` when long: versions as explanations list them.
std::string version_list(const std::vector<std::string>& versions);

// Tree text as in UX.md: one line per step, `╰─ ` after an indent of three spaces per level.
std::vector<std::string> render_explanation(const Unsolvable& unsolvable);

}  // namespace bevenv::solver
