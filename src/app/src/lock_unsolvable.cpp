#include "lock_unsolvable.hpp"

#include <variant>

#include "bevenv/app/matrix_source.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "explain_virtuals.hpp"
#include "lock_extras.hpp"
#include "lock_target_gap.hpp"
#include "lock_target_observed.hpp"
#include "lock_translate.hpp"

namespace bevenv::app {
namespace {

using core::ExitCode;

nlohmann::json explanation_json(const std::vector<solver::ExplanationStep>& steps) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& step : steps) {
    nlohmann::json j = {{"text", step.text}, {"package", step.package}};
    if (!step.versions.empty()) j["versions"] = step.versions;
    if (!step.dependency.empty()) j["dependency"] = step.dependency;
    if (!step.other_package.empty()) j["other_package"] = step.other_package;
    if (!step.origin.empty()) j["origin"] = step.origin;
    if (!step.children.empty()) j["because"] = explanation_json(step.children);
    out.push_back(std::move(j));
  }
  return out;
}

// The same target as flags, so a port is tried (and the hint runs) on exactly this target and
// nothing is detected again.
TargetOverrides same_target(const TargetFacts& target) {
  TargetOverrides out;
  if (target.cuda_driver) out.cuda_driver = target.cuda_driver->to_string();
  for (const auto& gpu : target.gpus) out.gpus.push_back(gpu.name());
  if (out.gpus.empty()) out.gpus = {"none"};
  out.platform = target.platform;
  out.glibc = target.glibc.to_string();
  return out;
}

bool locks(const LockOptions& options) {
  try {
    const LockInputs inputs = gather_lock_inputs(options);
    // Whether it locks, not why not: the records the target rules out need not be solved over.
    Translation translation = translate(inputs, requested_extras(inputs), RecordScope::installable);
    add_extra_records(translation, inputs);
    const auto result = solve_with_preferences(translation, inputs);
    return std::holds_alternative<solver::Solution>(result);
  } catch (const core::Error&) {
    return false;
  }
}

// Profiles of the same stack: the ports of this one, the official profile this one ports, and
// that profile's other ports.
bool same_stack(const matrix::Profile& candidate, const matrix::Profile& profile) {
  if (candidate.name == profile.name) return false;
  if (candidate.port_of == profile.name || profile.port_of == candidate.name) return true;
  return !profile.port_of.empty() && candidate.port_of == profile.port_of;
}

// The first profile of the same stack (by name) that locks for this target. Its own Python: a
// port may move to a newer one.
const matrix::Profile* find_port(const LockOptions& options, const LockInputs& inputs) {
  if (inputs.profile == nullptr) return nullptr;
  for (const auto& [name, candidate] : inputs.matrix.profiles) {
    if (!same_stack(candidate, *inputs.profile)) continue;
    LockOptions tried = options;
    tried.profile = name;
    tried.target = same_target(inputs.target);
    tried.check = false;
    if (locks(tried)) return &candidate;
  }
  return nullptr;
}

std::string lock_command_for(const matrix::Profile& port, const TargetFacts& target) {
  std::string command = "bevenv lock --profile " + port.name;
  // A target this host supplied (detected, or from its record) is found again by the port's lock.
  const bool detected = target.driver_from == "detected" || is_observed_origin(target.driver_from);
  if (!detected) {
    for (const auto& gpu : target.gpus) command += " --gpu " + gpu.name();
    if (target.cuda_driver) command += " --cuda-driver " + target.cuda_driver->to_string();
  }
  // Never detected: a lock without them would be for another machine than the one tried.
  if (target.platform != kDefaultPlatform) command += " --platform " + target.platform;
  if (const std::string glibc = target.glibc.to_string(); glibc != kDefaultGlibc)
    command += " --glibc " + glibc;
  return command;
}

const matrix::NoPort* no_port_for(const LockInputs& inputs) {
  if (inputs.profile == nullptr) return nullptr;
  for (const auto& entry : inputs.profile->no_ports) {
    for (const auto& gpu : inputs.target.gpus) {
      for (const auto& named : entry.gpus) {
        if (named == gpu.name()) return &entry;
      }
    }
  }
  return nullptr;
}

void add_tree(CommandOutput& out, const std::vector<std::string>& tree, bool verbose_only) {
  // Long trees bury the cause: the first lines carry the first chains; -v shows the rest.
  constexpr std::size_t kShownLines = 12;
  for (std::size_t i = 0; i < tree.size(); ++i) {
    out.add(tree[i], Mark::none, 1).verbose_only = verbose_only || i >= kShownLines;
  }
  if (!verbose_only && tree.size() > kShownLines) {
    out.add("… " + std::to_string(tree.size() - kShownLines) + " more lines (`-v` shows them)",
            Mark::none, 1);
  }
}

// Offline, the first requirement the user wrote whose package the matrix does not hold: no
// pin of it can be relaxed; the hint says what it may have been meant to be, and how to read it
// from an index.
std::optional<std::string> hint_for_unknown_package(const LockInputs& inputs) {
  if (!inputs.index_sources.empty()) return std::nullopt;
  for (const auto& user : inputs.requirements) {
    const std::string name = core::normalize_name(user.requirement.name);
    if (inputs.matrix.find_package(name) != nullptr) continue;
    const std::string near = package_meant(inputs.matrix, name);
    return "hint: `" + name + "` is not in the matrix" +
           (near.empty() ? "" : " (did you mean `" + near + "`?)") +
           "; a package it lacks is read from an index: add `--index-url "
           "https://pypi.org/simple`";
  }
  return std::nullopt;
}

}  // namespace

std::string lock_subject(const LockInputs& inputs) {
  return inputs.profile != nullptr ? inputs.profile->name : std::string("the request");
}

CommandOutput unsatisfiable(const LockOptions& options, const LockInputs& inputs,
                            solver::Unsolvable unsolvable) {
  describe_virtuals(unsolvable, inputs.target);
  CommandOutput out;
  out.exit_code = ExitCode::problem_found;
  out.add(
      "no environment satisfies " + lock_subject(inputs) + " (" + inputs.target.describe() + ")",
      Mark::problem);
  const std::optional<std::string> gap = target_gap(inputs);
  const matrix::Profile* port = gap ? find_port(options, inputs) : nullptr;
  const matrix::NoPort* none = gap && port == nullptr ? no_port_for(inputs) : nullptr;
  if (gap) out.add(*gap, Mark::none, 1);
  add_tree(out, solver::render_explanation(unsolvable), gap.has_value());
  if (port != nullptr) {
    out.add("`" + port->name + "` serves this target: " + port->summary, Mark::none, 1);
    out.hint("hint: `" + lock_command_for(*port, inputs.target) + "`; `bevenv matrix profiles " +
                 port->name + "` lists what it changes and its caveats",
             0);
  } else if (none != nullptr) {
    out.add("no known port: " + none->reason, Mark::none, 1);
    out.hint("hint: lock for a GPU the official stack runs on (`--gpu`), or another profile", 0);
  } else if (const auto unknown = hint_for_unknown_package(inputs)) {
    out.hint(*unknown, 0);
  } else {
    out.hint(
        "hint: relax or drop a pin named above; `bevenv matrix show PACKAGE` lists the "
        "versions and the rules that touch them",
        0);
  }
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& problem : unsolvable.problems)
    problems.push_back(explanation_json(problem.steps));
  out.json = {
      {"status", "unsatisfiable"}, {"target", inputs.target.describe()}, {"problems", problems}};
  if (gap) out.json["reason"] = *gap;
  if (port != nullptr) out.json["port"] = port->name;
  if (none != nullptr) out.json["no_port"] = none->reason;
  return out;
}

}  // namespace bevenv::app
