#include "explain_text.hpp"

#include "bevenv/util/text.hpp"

namespace bevenv::solver::detail {
namespace {

constexpr std::size_t max_listed_versions = 4;

constexpr std::size_t max_listed_origins = 2;

std::string origin_suffix(const std::vector<std::string>& origins) {
  if (origins.empty()) return {};
  if (origins.size() <= max_listed_origins) return "   (" + util::join(origins, "; ") + ")";
  return "   (" + origins[0] + "; " + origins[1] + "; +" +
         std::to_string(origins.size() - max_listed_origins) + " more)";
}

void collect_lines(const std::vector<ExplanationStep>& steps, std::size_t depth,
                   std::vector<std::string>& lines) {
  for (const auto& step : steps) {
    lines.push_back(std::string(depth * 3, ' ') + "╰─ " + step.text);
    collect_lines(step.children, depth + 1, lines);
  }
}

}  // namespace

Reason Reason::forbidden(std::vector<std::string> origins) {
  Reason r;
  r.kind = StepKind::forbidden;
  r.origins = std::move(origins);
  return r;
}

Reason Reason::requires_(std::string dependency, std::string origin,
                         std::vector<ExplanationStep> children) {
  Reason r;
  r.kind = StepKind::requires_;
  r.dependency = std::move(dependency);
  if (!origin.empty()) r.origins.push_back(std::move(origin));
  r.children = std::move(children);
  return r;
}

Reason Reason::conflict(StepKind kind, std::string other_name) {
  Reason r;
  r.kind = kind;
  r.other_name = std::move(other_name);
  return r;
}

ExplanationStep Reason::to_step(const std::string& name, const std::vector<std::string>& versions,
                                bool single_pin, bool whole_range) const {
  ExplanationStep step;
  step.kind = kind;
  step.package = name;
  step.versions = versions;
  step.dependency = dependency;
  step.other_package = other_name;
  step.other_versions = other_versions;
  step.origin = util::join(origins, "; ");
  step.children = children;

  const std::string subject = single_pin ? "which" : name + " " + version_list(versions);
  const bool many = whole_range && versions.size() > 1;
  const std::string other = other_name + " " + version_list(other_versions);
  switch (kind) {
    case StepKind::requires_:
      step.text = subject + " requires " + dependency;
      break;
    case StepKind::forbidden:
      step.text = subject + (versions.size() > 1 ? " are excluded" : " is excluded");
      break;
    case StepKind::conflicts: {
      const std::string target = other_is_system ? "the system's " + other : other;
      step.text = many ? "no " + name + " in that range is compatible with " + target
                       : subject + " conflicts with " + target;
      break;
    }
    case StepKind::same_name: {
      const std::string verb = other_is_system ? "replace " + other + " installed on the system"
                                               : "be installed together with " + other;
      step.text = many ? "no " + name + " in that range can " + verb : subject + " cannot " + verb;
      break;
    }
    default:
      break;
  }
  step.text += origin_suffix(origins);
  return step;
}

std::string signature_of(const std::vector<Reason>& reasons) {
  std::vector<ExplanationStep> steps;
  for (const auto& reason : reasons) {
    Reason without_origins = reason;  // origins differ per version; they are merged instead
    without_origins.origins.clear();
    steps.push_back(without_origins.to_step("", {}, false, false));
  }
  std::vector<std::string> lines;
  collect_lines(steps, 0, lines);
  return util::join(lines, "\n");
}

ExplanationStep wants_step(const Dependency& root, const DepKey& key) {
  ExplanationStep step;
  step.kind = StepKind::wants;
  step.package = key.name;
  step.dependency = key.display;
  step.origin = root.origin;
  step.text = (root.origin.empty() ? std::string("the request") : root.origin.str()) + " wants " +
              key.display;
  return step;
}

ExplanationStep nothing_matches_step(const DepKey& key, const std::vector<std::string>& available,
                                     bool only_system) {
  ExplanationStep step;
  step.kind = StepKind::nothing_matches;
  step.package = key.name;
  step.dependency = key.display;
  step.other_versions = available;
  if (available.empty()) {
    step.text = "no package provides " + key.name;
  } else {
    step.text = "no " + key.name + " matches " + key.display.substr(key.name.size() + 1) + "   (" +
                (only_system ? "the system has " : "available: ") + version_list(available) + ")";
  }
  return step;
}

bool is_exact_pin(const core::SpecifierSet& specifier) {
  if (specifier.specifiers().size() != 1) return false;
  const core::Specifier& only = specifier.specifiers().front();
  return (only.op() == core::Operator::equal && !only.is_wildcard()) ||
         only.op() == core::Operator::arbitrary;
}

std::vector<std::string> render_lines(const std::vector<ExplanationStep>& steps) {
  std::vector<std::string> lines;
  collect_lines(steps, 0, lines);
  return lines;
}

}  // namespace bevenv::solver::detail

namespace bevenv::solver {

std::vector<std::string> render_explanation(const Unsolvable& unsolvable) {
  std::vector<std::string> lines;
  for (const Problem& problem : unsolvable.problems) {
    std::vector<std::string> more = detail::render_lines(problem.steps);
    lines.insert(lines.end(), more.begin(), more.end());
  }
  return lines;
}

std::string version_list(const std::vector<std::string>& versions) {
  if (versions.size() <= detail::max_listed_versions) return util::join(versions, " | ");
  return versions[0] + " | " + versions[1] + " | … | " + versions.back() + " (" +
         std::to_string(versions.size()) + " versions)";
}

}  // namespace bevenv::solver
