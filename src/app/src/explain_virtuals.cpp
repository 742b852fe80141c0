#include "explain_virtuals.hpp"

#include <map>

#include "lock_extras.hpp"
#include "lock_translate.hpp"

namespace bevenv::app {
namespace {

using solver::ExplanationStep;
using solver::StepKind;

constexpr std::string_view kKernelsPrefix = "__kernels-";

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string name_of(const std::string& dependency) {
  return dependency.substr(0, dependency.find(' '));
}

std::string specifier_of(const std::string& dependency) {
  const auto space = dependency.find(' ');
  return space == std::string::npos ? std::string() : dependency.substr(space + 1);
}

std::string origin_suffix(const std::string& text) {
  const auto at = text.find("   (");
  return at == std::string::npos ? std::string() : text.substr(at);
}

std::string from(const std::string& origin) {
  return origin.empty() ? std::string() : " (" + origin + ")";
}

std::string target_python(const TargetFacts& target) {
  return "the target is Python " + target.python.to_string() + from(target.python_from);
}

std::string target_driver(const TargetFacts& target) {
  if (!target.cuda_driver) return "the target names no driver";
  return "the target's driver supports CUDA " + target.cuda_driver->to_string() +
         from(target.driver_from);
}

// What a step about a virtual record says instead; empty when the step should go (its parent
// already says it).
std::string fact_text(const ExplanationStep& step, const TargetFacts& target) {
  const std::string& name = step.package;
  if (name == kPythonVirtual) return target_python(target);
  if (name == kCudaVirtual) return target_driver(target);
  if (name == kCudaBuildVirtual && step.kind == StepKind::same_name) {
    return "one environment holds one CUDA build: CUDA " +
           (step.versions.empty() ? "" : step.versions.front()) + " and " +
           (step.other_versions.empty() ? "another" : step.other_versions.front()) +
           " builds cannot be mixed";
  }
  return {};
}

void rewrite_requirement(ExplanationStep& step, const TargetFacts& target) {
  const std::string name = name_of(step.dependency);
  const std::string spec = specifier_of(step.dependency);
  const std::string subject = step.text.substr(0, step.text.find(" requires "));
  const std::string origin = origin_suffix(step.text);
  if (starts_with(name, kKernelsPrefix)) {
    step.text = subject + " has no kernels (SASS or PTX) for " + name.substr(kKernelsPrefix.size());
    step.children.clear();
  } else if (name == kNoFileVirtual && step.origin.find(kNoSdistReason) != std::string::npos) {
    step.text = subject + " " + kNoSdistReason +
                " (refresh it: `bevenv matrix snapshot`, docs/matrix-snapshot.md)";
    step.children.clear();
  } else if (name == kNoFileVirtual && step.origin.find(kNotServedReason) != std::string::npos) {
    step.text = subject + " is " + kNotServedReason +
                " (`--index-url`, `--extra-index-url`, `--find-links`)";
    step.children.clear();
  } else if (name == kNoFileVirtual) {
    step.text = subject + " has no file for " + target.platform + ", Python " + target.python_minor;
    step.children.clear();
  } else if (name == kPythonVirtual) {
    step.text = subject + " needs Python " + spec + origin;
  } else if (name == kCudaVirtual) {
    step.text = subject + " needs a driver for CUDA " + spec + origin;
  } else if (name == kCudaBuildVirtual) {
    step.text = subject + " is built for CUDA " + spec.substr(spec.rfind('=') + 1) + origin;
  }
}

// `__jsonschema[format-nongpl]` -> `jsonschema[format-nongpl]`: an extra's record speaks as the
// requirement a user writes.
void name_extras_as_written(std::string& text) {
  for (std::size_t at = text.find("__"); at != std::string::npos; at = text.find("__", at + 1)) {
    const std::size_t close = text.find(']', at);
    if (close == std::string::npos) return;
    const std::string record = text.substr(at, close + 1 - at);
    if (package_of_extra_record(record)) text.replace(at, record.size(), extra_as_written(record));
  }
}

// `jsonschema[format-nongpl] 4.18.5 requires jsonschema ==4.18.5`: an extra's record holding
// its package to its own version, which says nothing the package's steps do not.
bool holds_to_own_package(const ExplanationStep& step) {
  const auto package = package_of_extra_record(step.package);
  return package && step.kind == StepKind::requires_ && name_of(step.dependency) == *package;
}

// Such steps of one extra's record, one per version, become one step listing the versions.
void merge_own_package_steps(std::vector<ExplanationStep>& steps) {
  std::vector<ExplanationStep> out;
  std::map<std::string, std::size_t> merged;  // extra's record -> its step in `out`
  for (ExplanationStep& step : steps) {
    if (!holds_to_own_package(step)) {
      out.push_back(std::move(step));
      continue;
    }
    const auto [at, first] = merged.emplace(step.package, out.size());
    if (first) {
      out.push_back(std::move(step));
      continue;
    }
    ExplanationStep& into = out[at->second];
    into.versions.insert(into.versions.end(), step.versions.begin(), step.versions.end());
    for (auto& child : step.children) into.children.push_back(std::move(child));
  }
  for (const auto& [record, at] : merged) {
    ExplanationStep& step = out[at];
    const std::string package = *package_of_extra_record(record);
    step.text = extra_as_written(record) + " " + solver::version_list(step.versions) + " needs " +
                package + " of the same version";
  }
  steps = std::move(out);
}

void describe(std::vector<ExplanationStep>& steps, const TargetFacts& target) {
  merge_own_package_steps(steps);
  std::vector<ExplanationStep> kept;
  for (ExplanationStep& step : steps) {
    name_extras_as_written(step.text);
    // An extra's record is a package like any other in an explanation.
    const bool of_extra = package_of_extra_record(step.package).has_value() ||
                          package_of_extra_record(name_of(step.dependency)).has_value();
    if (!of_extra && step.kind == StepKind::requires_ && is_virtual(name_of(step.dependency))) {
      rewrite_requirement(step, target);
    } else if (!of_extra && is_virtual(step.package)) {
      const std::string text = fact_text(step, target);
      if (text.empty() && step.kind == StepKind::nothing_matches) continue;
      if (!text.empty()) step.text = text;
    }
    describe(step.children, target);
    kept.push_back(std::move(step));
  }
  steps = std::move(kept);
}

}  // namespace

void describe_virtuals(solver::Unsolvable& unsolvable, const TargetFacts& target) {
  for (auto& problem : unsolvable.problems) describe(problem.steps, target);
}

}  // namespace bevenv::app
