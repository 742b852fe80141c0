#include "lock_result.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "bevenv/app/version_info.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/matrix/evaluate.hpp"
#include "lock_cuda_choice.hpp"
#include "lock_extras.hpp"
#include "lock_generated.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;
using lockfiles::Reason;
using lockfiles::ReasonKind;

std::string first_source(const std::vector<std::string>& sources) {
  return sources.empty() ? std::string() : sources.front();
}

std::string dependency_text(const solver::Dependency& d) {
  return d.specifier.empty() ? d.name : d.name + d.specifier.to_string();
}

matrix::Selection selection_of(const LockInputs& inputs, const solver::Solution& solution) {
  matrix::Selection selection;
  for (const auto& chosen : solution.packages) {
    if (!is_virtual(chosen.name)) selection.pins[chosen.name] = chosen.version;
  }
  selection.target.python = inputs.target.python;
  selection.target.cuda_driver = inputs.target.cuda_driver;
  if (!inputs.target.gpus.empty()) selection.target.gpu_arch = inputs.target.gpus.front().name();
  selection.target.platform = "linux";
  selection.profile = inputs.profile;
  return selection;
}

std::string rule_effect(const matrix::Rule& rule) {
  const std::string then = rule.then.name + rule.then.specifier.to_string();
  switch (rule.kind) {
    case matrix::RuleKind::conflicts:
      return "not " + then;
    case matrix::RuleKind::requires_:
      return then;
    case matrix::RuleKind::prefer:
      return "prefer " + then;
  }
  return then;
}

std::vector<Reason> reasons_for(const solver::ChosenPackage& chosen,
                                const solver::Solution& solution, const Translation& translation,
                                const std::vector<const matrix::Rule*>& applied) {
  std::vector<Reason> why;
  for (const auto& link : chosen.required_by) {
    Reason reason;
    const auto rule = translation.rule_origins.find(link.dependency.origin);
    if (rule != translation.rule_origins.end()) {
      reason.kind = ReasonKind::rule;
      reason.rule_id = rule->second->id;
      reason.source = first_source(rule->second->sources);
      reason.text = "held to `" + dependency_text(link.dependency) + "`";
    } else if (link.from) {
      const auto& parent = solution.packages.at(*link.from);
      const auto extra_of = package_of_extra_record(parent.name);
      // An extra's record holds its own package to one version: no reason of that package's.
      if (extra_of && *extra_of == chosen.name) continue;
      reason.kind = ReasonKind::required_by;
      reason.package = extra_of.value_or(parent.name);
      reason.text = "`" + dependency_text(link.dependency) + "`";
    } else {
      reason.kind = ReasonKind::requested;
      reason.text = link.dependency.origin + " (`" + dependency_text(link.dependency) + "`)";
    }
    if (std::find(why.begin(), why.end(), reason) == why.end()) why.push_back(reason);
  }
  // Known-bad pins this choice stays clear of, and known-good preferences it follows.
  for (const matrix::Rule* rule : applied) {
    if (core::normalize_name(rule->then.name) != chosen.name) continue;
    Reason reason;
    reason.rule_id = rule->id;
    reason.source = first_source(rule->sources);
    if (rule->kind == matrix::RuleKind::conflicts) {
      reason.kind = ReasonKind::rule;
      reason.text = "kept out of `" + rule->then.name + rule->then.specifier.to_string() + "`";
    } else if (rule->kind == matrix::RuleKind::prefer) {
      reason.kind = ReasonKind::preferred;
      reason.text = "the known-good version of rule `" + rule->id + "`";
    } else {
      continue;  // requires rules already appear as incoming edges
    }
    if (std::find(why.begin(), why.end(), reason) == why.end()) why.push_back(reason);
  }
  return why;
}

lockfiles::Source source_of(const matrix::PackageVersion& build) {
  if (!build.find_links.empty()) return {lockfiles::SourceKind::find_links, build.find_links};
  if (!build.index_url.empty()) return {lockfiles::SourceKind::index, build.index_url};
  // A generated record comes from the index the snapshot read.
  if (build.generated && build.generated->index != "https://pypi.org/simple")
    return {lockfiles::SourceKind::index, build.generated->index.str()};
  return {lockfiles::SourceKind::pypi, "https://pypi.org/simple"};
}

std::vector<lockfiles::Artifact> artifacts_of(const matrix::PackageVersion& build) {
  if (build.artifact_url.empty()) return {};
  lockfiles::Artifact artifact;
  artifact.url = build.artifact_url;
  artifact.filename = build.artifact_url.substr(build.artifact_url.rfind('/') + 1);
  if (!build.sha256.empty()) artifact.sha256 = build.sha256;
  return {artifact};
}

lockfiles::Environment environment_of(const LockInputs& inputs, const Translation& translation,
                                      const solver::Solution& solution) {
  lockfiles::Environment env;
  std::optional<core::Version> cuda;
  for (const auto& chosen : solution.packages) {
    const matrix::PackageVersion* record = translation.records.find(chosen.record);
    if (record == nullptr || !record->cuda) continue;
    if (!cuda || *record->cuda > *cuda) cuda = record->cuda;
  }
  if (!cuda && inputs.profile != nullptr && !inputs.profile->cuda.empty()) {
    if (auto parsed = core::Version::parse(inputs.profile->cuda)) cuda = parsed.value();
  }
  if (cuda) env.cuda = cuda->to_string();
  if (inputs.profile != nullptr) {
    env.variables.insert(inputs.profile->env.begin(), inputs.profile->env.end());
  }
  env.base_image.tag = base_image_for(inputs, cuda);
  env.torch_cuda_arch_list = ops_arch_list(inputs, cuda);
  if (!env.torch_cuda_arch_list.empty()) {
    env.variables["TORCH_CUDA_ARCH_LIST"] = env.torch_cuda_arch_list;
  }
  return env;
}

// `package` names the package a step belongs to when the step itself does not (a record's own
// source build).
// `after`: the locked dependencies of the package the step builds, installed before it runs.
lockfiles::BuildStep build_step_of(const matrix::BuildStep& step, const std::string& package,
                                   const std::string& arch, std::vector<std::string> after = {}) {
  lockfiles::BuildStep out;
  out.name = step.name.empty() ? package : step.name;
  const std::string produces = step.package.empty() ? package : step.package;
  out.after = std::move(after);
  // The package a build installs is installed by that build alone, never also pinned for pip
  // from an index; a pinned source tree travels as data.
  out.package = produces;
  if (!step.vcs.empty()) out.vcs = step.vcs;
  if (!step.workdir.empty()) out.working_dir = step.workdir;
  out.env.insert(step.env.begin(), step.env.end());
  if (!arch.empty()) out.env["TORCH_CUDA_ARCH_LIST"] = arch;
  if (!step.command.empty()) out.commands.push_back(step.command);
  out.cuda_arch_list = arch;
  return out;
}

// A build of the release's own sdist installs that file, hash-checked, with the step's `env`:
// the package shows it, and the step carries it as data (no command).
void attach_sdist(const matrix::PackageVersion& build, lockfiles::Package& package,
                  lockfiles::BuildStep& step) {
  const matrix::Artifact* sdist = sdist_of(build);
  if (sdist == nullptr) {
    // Translation requires `__file-for-target` of such a record: it cannot be chosen.
    throw Error(ExitCode::failure, "`" + build.id() + "` builds its sdist, and the matrix has none",
                "refresh the generated layer: `bevenv matrix snapshot` (docs/matrix-snapshot.md)");
  }
  package.artifacts = {lock_artifact(*sdist)};
  step.source = package.artifacts.front();
}

// The rules that shaped this environment, recorded in the lock with their effect.
std::vector<const matrix::Rule*> applied_rules(const LockInputs& inputs,
                                               const Translation& translation,
                                               const solver::Solution& solution,
                                               lockfiles::Lockfile& lock) {
  const matrix::Selection selection = selection_of(inputs, solution);
  std::vector<const matrix::Rule*> applied;
  for (const auto& [origin, rule] : translation.rule_origins) {
    // A rule shaped this environment when its `when` holds, it is kept, and the package its
    // `then` names is in the environment (a known-bad pin of an absent package avoided nothing).
    const bool holds = matrix::when_holds(*rule, selection) == matrix::Truth::yes &&
                       matrix::check_rule(*rule, selection) == matrix::Verdict::satisfied &&
                       selection.pins.count(core::normalize_name(rule->then.name)) != 0;
    // A rule that became a dependency edge shaped the result even where its `when` is wider.
    // (A named copy: clang 14 cannot capture structured bindings in a lambda.)
    const std::string& label = origin;
    const bool used =
        std::any_of(solution.packages.begin(), solution.packages.end(), [&](const auto& p) {
          return std::any_of(
              p.required_by.begin(), p.required_by.end(),
              [&label](const solver::WhyLink& l) { return l.dependency.origin == label; });
        });
    if (!holds && !used) continue;
    applied.push_back(rule);
    lock.rules_applied.push_back(
        {rule->id, rule->failure, rule_effect(*rule),
         rule->symptom.empty() ? std::nullopt : std::optional<std::string>(rule->symptom),
         first_source(rule->sources)});
  }
  return applied;
}

// The chosen records of extras (`pkg[extra]`), by the package each is an extra of.
using ExtraRecords = std::map<std::string, std::vector<const solver::ChosenPackage*>, std::less<>>;
ExtraRecords extra_records_of(const solver::Solution& solution) {
  ExtraRecords out;
  for (const auto& chosen : solution.packages) {
    if (auto package = package_of_extra_record(chosen.name))
      out[std::move(*package)].push_back(&chosen);
  }
  return out;
}

lockfiles::Package locked_package(const solver::ChosenPackage& chosen,
                                  const matrix::PackageVersion& build, const LockInputs& inputs,
                                  const Translation& translation, const solver::Solution& solution,
                                  const std::vector<const matrix::Rule*>& applied,
                                  const ExtraRecords& extras) {
  lockfiles::Package package;
  package.name = build.name;
  package.version = build.install_version();
  package.variant = build.version.local_string();
  package.source = source_of(build);
  package.artifacts = artifacts_of(build);
  for (const auto& edge : chosen.dependencies) {
    if (!is_virtual(edge.dependency.name)) package.dependencies.push_back(edge.dependency.name);
  }
  // What the package's extras brought are its dependencies too.
  if (const auto found = extras.find(chosen.name); found != extras.end()) {
    for (const solver::ChosenPackage* other : found->second) {
      if (other->version != chosen.version) continue;
      for (const auto& edge : other->dependencies) {
        const std::string& name = edge.dependency.name;
        if (!is_virtual(name) && name != chosen.name) package.dependencies.push_back(name);
      }
    }
  }
  std::sort(package.dependencies.begin(), package.dependencies.end());
  package.dependencies.erase(std::unique(package.dependencies.begin(), package.dependencies.end()),
                             package.dependencies.end());
  package.why = reasons_for(chosen, solution, translation, applied);
  if (auto target = cuda_build_reason(build, inputs)) package.why.push_back(std::move(*target));
  return package;
}

// A profile's own builds that no locked package brought: they run in the project source (its
// root unless `workdir` says otherwise), so the image runs them only after that source is in.
void add_profile_builds(const LockInputs& inputs, const std::string& arch,
                        lockfiles::Lockfile& lock) {
  if (inputs.profile == nullptr) return;
  for (const auto& step : inputs.profile->builds) {
    const bool present = std::any_of(lock.builds.begin(), lock.builds.end(),
                                     [&](const auto& b) { return b.name == step.name; });
    if (present) continue;
    lockfiles::BuildStep in_project = build_step_of(step, std::string(), arch);
    if (!in_project.working_dir) in_project.working_dir = ".";
    lock.builds.push_back(std::move(in_project));
  }
}

}  // namespace

lockfiles::Lockfile build_lockfile(const LockInputs& inputs, const Translation& translation,
                                   const solver::Solution& solution) {
  lockfiles::Lockfile lock;
  lock.generator = version_line();
  lock.matrix_version = inputs.matrix.version;
  lock.input_hash = input_hash(inputs);
  if (inputs.profile != nullptr) lock.profile = inputs.profile->name;
  lock.target.python = inputs.target.python.to_string();
  lock.target.platform = inputs.target.platform;
  lock.target.glibc = inputs.target.glibc.to_string();
  if (inputs.target.cuda_driver) lock.target.cuda_driver = inputs.target.cuda_driver->to_string();
  for (const auto& gpu : inputs.target.gpus) lock.target.gpus.push_back(gpu.name());
  lock.inputs = inputs.recorded;

  const std::vector<const matrix::Rule*> applied =
      applied_rules(inputs, translation, solution, lock);
  lock.environment = environment_of(inputs, translation, solution);
  const std::string arch = lock.environment.torch_cuda_arch_list;
  const ExtraRecords extras = extra_records_of(solution);
  for (const auto& chosen : solution.packages) {
    const matrix::PackageVersion* record = translation.records.find(chosen.record);
    if (chosen.is_system || record == nullptr) continue;
    const matrix::PackageVersion& build = *record;
    lockfiles::Package package =
        locked_package(chosen, build, inputs, translation, solution, applied, extras);
    if (build.build == matrix::BuildKind::source && build.build_step) {
      lock.builds.push_back(
          build_step_of(*build.build_step, build.name, arch, package.dependencies));
      if (build.build_step->sdist) attach_sdist(build, package, lock.builds.back());
    }
    lock.packages.push_back(std::move(package));
  }
  add_profile_builds(inputs, arch, lock);
  lockfiles::canonicalize(lock);
  return lock;
}

}  // namespace bevenv::app
