#include "lock_translate.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "bevenv/core/name.hpp"
#include "bevenv/matrix/evaluate.hpp"
#include "bevenv/solver/solve.hpp"
#include "lock_extras.hpp"
#include "lock_forced.hpp"
#include "lock_generated.hpp"
#include "lock_root_pins.hpp"
#include "lock_stand_ins.hpp"
#include "target_kernels.hpp"

namespace bevenv::app {

solver::Dependency dependency_of(const core::Requirement& r, util::SharedText origin) {
  return solver::Dependency{core::normalize_name(r.name), r.specifier, std::move(origin)};
}

void MatrixRecords::add(solver::RecordId id, const matrix::PackageVersion* build) {
  const auto at = std::lower_bound(entries_.begin(), entries_.end(), id,
                                   [](const Entry& e, solver::RecordId i) { return e.first < i; });
  if (at != entries_.end() && at->first == id) {
    at->second = build;
  } else {
    entries_.insert(at, {id, build});  // at the end, as records are made in id order
  }
}

const matrix::PackageVersion* MatrixRecords::find(solver::RecordId id) const {
  const auto at = std::lower_bound(entries_.begin(), entries_.end(), id,
                                   [](const Entry& e, solver::RecordId i) { return e.first < i; });
  return at != entries_.end() && at->first == id ? at->second : nullptr;
}

std::optional<bool> TargetMarkers::holds(const core::Marker& marker, const std::string& extra) {
  auto [at, added] = results_.try_emplace({marker.identity(), extra}, Kept{marker, std::nullopt});
  if (added) {
    env_.values["extra"] = extra;
    const auto result = marker.evaluate(env_);
    if (result) at->second.result = *result;
  }
  return at->second.result;
}

bool requirement_applies(const core::Requirement& requirement, const std::set<std::string>* extras,
                         TargetMarkers& markers) {
  if (requirement.marker.empty()) return true;
  const std::optional<bool> plain = markers.holds(requirement.marker, "");
  if (!plain || *plain) return true;
  if (extras == nullptr) return false;
  return std::any_of(extras->begin(), extras->end(), [&](const std::string& extra) {
    return markers.holds(requirement.marker, extra).value_or(false);
  });
}

const std::set<std::string>* extras_of(const ExtrasAsked& asked, const std::string& name) {
  const auto it = asked.find(name);
  return it == asked.end() ? nullptr : &it->second;
}

namespace {

solver::Dependency condition_dependency(const matrix::PackageCondition& c, std::string origin) {
  return solver::Dependency{c.name, c.specifier, std::move(origin)};
}

// `>=V` and `==V` for the CUDA versions the records carry, each parsed once: thousands of
// records carry one of a dozen.
class CudaSpecifiers {
 public:
  const core::SpecifierSet& at_least(const core::Version& v) { return parsed(">=", v); }
  const core::SpecifierSet& same_release(const core::Version& v) { return parsed("==", v); }

 private:
  const core::SpecifierSet& parsed(const char* op, const core::Version& v) {
    std::string text = op + v.to_string();
    auto it = parsed_.find(text);
    if (it == parsed_.end())
      it = parsed_.emplace(text, core::SpecifierSet::parse(text).value()).first;
    return it->second;
  }
  std::map<std::string, core::SpecifierSet> parsed_;
};

core::SpecifierSet exactly(const core::Version& v) {
  return core::SpecifierSet::parse("===" + v.to_string()).value();
}

matrix::TargetFacts matrix_target(const TargetFacts& target) {
  matrix::TargetFacts facts;
  facts.python = target.python;
  facts.cuda_driver = target.cuda_driver;
  if (!target.gpus.empty()) facts.gpu_arch = target.gpus.front().name();
  facts.platform = "linux";
  return facts;
}

// Whether a rule's target and profile conditions hold, so only its package conditions remain.
bool rule_context_holds(const matrix::Rule& rule, const LockInputs& inputs) {
  // A port lifts the rules about its official stack that its own changes answer.
  if (inputs.profile != nullptr) {
    const auto& lifts = inputs.profile->lifts;
    if (std::find(lifts.begin(), lifts.end(), rule.id) != lifts.end()) return false;
  }
  if (!rule.when_profiles.empty()) {
    if (inputs.profile == nullptr) return false;
    const bool inside = std::any_of(rule.when_profiles.begin(), rule.when_profiles.end(),
                                    [&](const std::string& p) { return inputs.profile->is_a(p); });
    if (!inside) return false;
  }
  if (rule.when_target.empty()) return true;
  matrix::Rule target_only = rule;
  target_only.when_packages.clear();
  matrix::Selection selection;
  selection.target = matrix_target(inputs.target);
  selection.profile = inputs.profile;
  if (inputs.target.gpus.size() > 1 && !rule.when_target.gpu_arch.empty()) {
    // A rule about one architecture holds when any target GPU has it.
    for (const auto& gpu : inputs.target.gpus) {
      selection.target.gpu_arch = gpu.name();
      if (matrix::when_holds(target_only, selection) == matrix::Truth::yes) return true;
    }
    return false;
  }
  return matrix::when_holds(target_only, selection) == matrix::Truth::yes;
}

// A `requires` rule binds the versions its first package condition matches; further conditions
// narrow nothing here, which errs on the side of enforcing the rule.
bool rule_binds(const matrix::Rule& rule, const std::string& name, const core::Version& version) {
  const matrix::PackageCondition& first = rule.when_packages.front();
  return first.name == name && first.matches(version);
}

// Why the target cannot install `build` from the files the matrix lists, as a requirement of
// `__file-for-target`; nullopt when it can.
std::optional<solver::Dependency> missing_file(const matrix::PackageVersion& build, FileFit& files,
                                               const TargetFacts& target, const std::string& self) {
  // A build of the release's own sdist needs that file (the snapshot records it).
  if (build.build_step && build.build_step->sdist && sdist_of(build) == nullptr)
    return solver::Dependency{kNoFileVirtual, {}, self + " (" + kNoSdistReason + ")"};
  // A generated release with files for other targets only (an aarch64 wheel, another CPython)
  // cannot be installed here.
  if (!build.artifacts.empty() && !files.any(build)) {
    return solver::Dependency{
        kNoFileVirtual,
        {},
        self + " (no file for " + target.platform + ", python " + target.python_minor + ")"};
  }
  return std::nullopt;
}

// Whether the target's Python is in the build's range; a build outside it makes no record in the
// installable scope (RecordMaker::add()).
bool in_python_range(const matrix::PackageVersion& build, const TargetFacts& target) {
  return build.python.empty() || build.python.contains(target.python);
}

// Whether one of the requirements a record of `build` gets on target facts fails on this
// target: a file for the target, the driver's CUDA, kernels for each GPU. (Its Python range is
// checked first, before these are worked out: in_python_range().)
bool target_rules_out(const matrix::PackageVersion& build,
                      const std::optional<solver::Dependency>& missing,
                      const std::vector<KernelSupport>& kernels, const TargetFacts& target,
                      CudaSpecifiers& cuda) {
  if (missing) return true;
  if (build.cuda && target.cuda_driver && !cuda.at_least(*build.cuda).contains(*target.cuda_driver))
    return true;
  return std::find(kernels.begin(), kernels.end(), KernelSupport::none) != kernels.end();
}

// The packages a solve can reach from the request, through the requirements that hold on the
// target with the extras in play (those the request asks, and those reached requirements ask:
// what lock_extras.cpp makes records of) and the rules that bind versions. The generated layer
// describes every profile's closure: a record of another package would be made only for the
// solver to leave it out (it keeps what the request reaches, in database order, so fewer
// records change no pool). A build `pins` rules out is never chosen, nor, where `pins` are
// given (the installable scope), one outside the target's Python range: their requirements are
// not followed.
std::unordered_set<const matrix::Package*> reachable_packages(const LockInputs& inputs,
                                                              const Translation& out,
                                                              const RootPins* pins,
                                                              TargetMarkers& markers) {
  std::unordered_set<const matrix::Package*> reached;
  std::map<std::string, std::set<std::string>, std::less<>> in_play(out.extras.begin(),
                                                                    out.extras.end());
  std::vector<const matrix::Package*> pending;
  auto want = [&](const matrix::Package* package) {
    if (reached.insert(package).second) pending.push_back(package);
  };
  // A package reached before one of its extras came into play is read again.
  auto ask = [&](const matrix::Package* package, const std::string& extra) {
    if (in_play[package->name].insert(extra).second && reached.count(package) != 0)
      pending.push_back(package);
  };
  // Whether a requirement could reach what is not reached yet: only then is its marker read.
  auto news = [&](const matrix::Package* package, const core::Requirement& requirement) {
    if (reached.count(package) == 0) return true;
    if (requirement.extras.empty()) return false;
    const auto playing = in_play.find(package->name);
    return playing == in_play.end() ||
           std::any_of(requirement.extras.begin(), requirement.extras.end(),
                       [&](const std::string& e) { return playing->second.count(e) == 0; });
  };
  // Requirement names recur across thousands of releases: each is looked up once.
  std::unordered_map<std::string_view, const matrix::Package*> found;
  auto package_named = [&](std::string_view name) {
    auto [at, added] = found.try_emplace(name, nullptr);
    if (added) at->second = inputs.matrix.find_package(name);
    return at->second;
  };
  for (const solver::Dependency& root : out.request.requirements) {
    if (const matrix::Package* package = inputs.matrix.find_package(root.name)) want(package);
  }
  while (!pending.empty()) {
    const matrix::Package& package = *pending.back();
    pending.pop_back();
    const std::set<std::string> extras = in_play[package.name];
    for (const auto& build : package.versions) {
      if (pins != nullptr && (pins->rules_out(build) || !in_python_range(build, inputs.target)))
        continue;
      for (const auto& requirement : build.requirements) {
        const matrix::Package* target = package_named(requirement.name);
        if (target == nullptr || !news(target, requirement) ||
            !requirement_applies(requirement, &extras, markers))
          continue;
        want(target);
        for (const auto& extra : requirement.extras) ask(target, extra);
      }
    }
    for (const matrix::Rule* rule : out.binding_rules) {
      if (rule->when_packages.front().name != package.name) continue;
      if (const matrix::Package* bound = package_named(rule->then.name)) want(bound);
    }
  }
  return reached;
}

// Room kept for the records that stand for no build: the CUDA builds carried (a dozen at most),
// Python, the driver's CUDA, and the extras' records made after the builds'. More only costs a
// regrowth.
constexpr std::size_t kVirtualRecords = 64;

// Makes the solver record of each matrix build for the target, keeping what the builds share:
// marker results, file fits, CUDA specifiers, and the lists each record is gathered in. It
// holds no reference to the translation, which moves after translate() returns.
class RecordMaker {
 public:
  explicit RecordMaker(const LockInputs& inputs)
      : inputs_(inputs),
        target_(inputs.target),
        markers_(inputs.target.marker_environment()),
        files_(inputs.target) {}

  TargetMarkers& markers() { return markers_; }

  void add(const matrix::PackageVersion& build, Translation& out) {
    // Outside the target's Python range, first: a quarter of the releases a Python 3.8 lock
    // reaches, whose file names and kernels then need not be read (target_rules_out()).
    if (out.scope == RecordScope::installable && !in_python_range(build, target_)) return;
    const std::string self = build.name + " " + build.version.to_string();
    // What the target makes of the build, worked out once: the check whether the target rules
    // it out and its requirements both need it (reading its file names is not cheap).
    std::optional<solver::Dependency> missing = missing_file(build, files_, target_, self);
    kernels_.clear();
    for (const auto& gpu : target_.gpus)
      kernels_.push_back(kernel_support(build, gpu, inputs_.matrix));
    if (out.scope == RecordScope::installable &&
        target_rules_out(build, missing, kernels_, target_, cuda_))
      return;
    gather_own_requirements(build, util::SharedText(self), out);
    if (missing) gathered_.push_back(std::move(*missing));
    gather_target_requirements(build, self, out);
    solver::PackageRecord record;
    record.name = build.name;
    record.version = build.version;
    record.source = build.find_links.empty() ? build.index_url : build.find_links;
    // Moved into a list of their exact size: thousands of records, most with a few.
    record.requirements.assign(std::make_move_iterator(gathered_.begin()),
                               std::make_move_iterator(gathered_.end()));
    gathered_.clear();
    // Prebuilt wheels first: a source build is chosen only when no wheel fits, and a build
    // that reaches a target GPU only through PTX JIT only when nothing carries its SASS.
    record.disfavored = !ptx_for_.empty() || build.build == matrix::BuildKind::source;
    const solver::RecordId id = out.database.add(std::move(record));
    out.records.add(id, &build);
    if (!ptx_for_.empty()) out.ptx_only[id] = ptx_for_;
  }

  // The records standing for target facts: each CUDA build carried, Python, the driver's CUDA.
  // A CUDA build first carried by a record made later gets its record then.
  void finish(Translation& out) {
    for (const core::Version& cuda : cuda_builds_) add_cuda_build(cuda, out);
    out.database.add_virtual(kPythonVirtual, target_.python);
    if (target_.cuda_driver) out.database.add_virtual(kCudaVirtual, *target_.cuda_driver);
    finished_ = true;
  }

 private:
  // Those of its requirements that hold on the target, and those the binding rules add.
  void gather_own_requirements(const matrix::PackageVersion& build, const util::SharedText& origin,
                               const Translation& out) {
    const std::set<std::string>* extras = extras_of(out.extras, build.name);
    for (const auto& requirement : build.requirements) {
      if (requirement_applies(requirement, extras, markers_))
        gathered_.push_back(dependency_of(requirement, origin));
    }
    for (auto& bound : rule_requirements(out, build.name, build.version))
      gathered_.push_back(std::move(bound));
  }

  // Its needs of the target: a Python, a driver for its CUDA, one CUDA build, kernels per GPU.
  void gather_target_requirements(const matrix::PackageVersion& build, const std::string& self,
                                  Translation& out) {
    if (!build.python.empty())
      gathered_.push_back({kPythonVirtual, build.python, self + " (Python range)"});
    if (build.cuda && target_.cuda_driver) {
      gathered_.push_back({kCudaVirtual, cuda_.at_least(*build.cuda),
                           self + " (CUDA " + build.cuda->to_string() + " runtime)"});
    }
    if (build.cuda) {
      gathered_.push_back({kCudaBuildVirtual, cuda_.same_release(*build.cuda),
                           self + " (built for CUDA " + build.cuda->to_string() + ")"});
      if (cuda_builds_.insert(*build.cuda).second && finished_) add_cuda_build(*build.cuda, out);
    }
    ptx_for_.clear();
    for (std::size_t g = 0; g < target_.gpus.size(); ++g) {
      const GpuArch& gpu = target_.gpus[g];
      if (kernels_[g] == KernelSupport::none) {
        gathered_.push_back({kernels_virtual(gpu), core::SpecifierSet(),
                             self + " (no SASS or PTX for " + gpu.name() + ")"});
      } else if (kernels_[g] == KernelSupport::ptx) {
        ptx_for_ += (ptx_for_.empty() ? "" : ", ") + gpu.name();
      }
    }
  }

  static void add_cuda_build(const core::Version& cuda, Translation& out) {
    solver::PackageRecord build;
    build.name = kCudaBuildVirtual;
    build.version = cuda;
    build.source = "CUDA build";
    out.database.add(std::move(build));
  }

  const LockInputs& inputs_;
  const TargetFacts& target_;
  TargetMarkers markers_;
  FileFit files_;
  CudaSpecifiers cuda_;
  std::set<core::Version> cuda_builds_;
  // Per build, reused: its requirements, its kernels per target GPU, the GPUs only PTX reaches.
  std::vector<solver::Dependency> gathered_;
  std::vector<KernelSupport> kernels_;
  std::string ptx_for_;
  bool finished_ = false;
};

}  // namespace

// Outside the anonymous namespace: Translation names it.
struct CuratedRecords {
  explicit CuratedRecords(const LockInputs& lock_inputs) : inputs(lock_inputs), records(inputs) {}
  const LockInputs& inputs;
  RecordMaker records;
  std::set<std::string, std::less<>> made;  // packages whose records are made
};

namespace {

void add_records(const LockInputs& inputs, Translation& out,
                 const std::vector<solver::Preference>* merge_alike_later) {
  // With an index, a curated package that only an index's release requires is still the
  // matrix's to describe, and which packages those are the search finds out: each package's
  // records are made when it first meets it (add_curated_records()).
  if (!inputs.index_sources.empty()) {
    auto curated = std::make_shared<CuratedRecords>(inputs);
    curated->records.finish(out);
    out.curated = std::move(curated);
    return;
  }
  std::optional<StandIns> stand_ins;
  if (merge_alike_later != nullptr && out.scope == RecordScope::installable)
    stand_ins.emplace(out.request, *merge_alike_later, out.extras);
  if (inputs.without_stood_for && (!stand_ins || stand_ins->keeps_one_of(inputs.matrix))) {
    out.needs_whole_matrix = true;
    return;
  }
  RecordMaker maker(inputs);
  // Explanations (scope `all`) name every build, even those no solution can choose.
  std::optional<RootPins> pins;
  if (out.scope == RecordScope::installable) pins.emplace(out.request, inputs.matrix);
  const RootPins* in_force = pins ? &*pins : nullptr;
  const auto reached = reachable_packages(inputs, out, in_force, maker.markers());
  // Thousands of records: room for all, and the few virtual ones, before any is made.
  std::size_t builds = 0;
  for (const auto& [name, package] : inputs.matrix.packages) {
    if (reached.count(&package) != 0) builds += package.versions.size();
  }
  out.database.reserve(out.database.size() + builds + kVirtualRecords);
  for (const auto& [name, package] : inputs.matrix.packages) {
    if (reached.count(&package) == 0) continue;
    for (std::size_t i = 0; i < package.versions.size(); ++i) {
      const matrix::PackageVersion& build = package.versions[i];
      if (stand_ins && stand_ins->leaves_out(package, i)) continue;
      if (in_force == nullptr || !in_force->rules_out(build)) maker.add(build, out);
    }
  }
  maker.finish(out);
}

void add_rule(const matrix::Rule& rule, Translation& out) {
  const std::string origin = rule_origin(rule);
  out.rule_origins[origin] = &rule;
  const solver::Dependency then = dependency_of(rule.then, origin);
  switch (rule.kind) {
    case matrix::RuleKind::conflicts: {
      if (rule.when_packages.empty()) {
        out.request.conflicts.push_back({then, std::nullopt, origin});
      } else {
        // Several package conditions: each pair with `then` is forbidden together, a
        // conservative reading that never admits the known-bad combination.
        for (const auto& condition : rule.when_packages) {
          out.request.conflicts.push_back({condition_dependency(condition, origin), then, origin});
        }
      }
      break;
    }
    case matrix::RuleKind::requires_:
      // Attached to the matching records by add_records; without package conditions the
      // requirement is a root one.
      if (rule.when_packages.empty()) out.request.requirements.push_back(then);
      break;
    case matrix::RuleKind::prefer:
      // A preference bound to packages (`torch<1.11` -> prefer setuptools 59.5.0) waits until a
      // first solution shows whether those packages are in the environment.
      if (rule.when_packages.empty()) {
        out.request.preferred.push_back({then.name, then.specifier});
      } else {
        out.conditional_preferences.push_back(&rule);
      }
      break;
  }
}

bool observed_target_matches(const matrix::Observed& observed, const TargetFacts& target) {
  for (const auto& [key, value] : observed.target) {
    if (key == "python" && value != target.python_minor && value != target.python.to_string()) {
      return false;
    }
    const std::string& wanted = value;  // clang 14 cannot capture structured bindings
    if (key == "gpu_arch" &&
        std::none_of(target.gpus.begin(), target.gpus.end(),
                     [&wanted](const GpuArch& g) { return g.name() == wanted; })) {
      return false;
    }
  }
  return true;
}

// Probe reports feed back: an observed failure forbids that version for a matching target,
// an observed success makes it the first choice.
void add_observed(const LockInputs& inputs, Translation& out) {
  for (const auto& observed : inputs.matrix.observed) {
    if (!observed_target_matches(observed, inputs.target)) continue;
    const std::string origin =
        "observed on " + observed.host + " (" + observed.date + ", " + observed.check + ")";
    const solver::Dependency subject{observed.package, exactly(observed.version), origin};
    if (observed.outcome == matrix::Outcome::fail) {
      out.request.conflicts.push_back({subject, std::nullopt, origin});
      ++out.observed_failures;
    } else {
      out.request.preferred.push_back({subject.name, subject.specifier});
      ++out.observed_successes;
    }
  }
}

}  // namespace

std::string kernels_virtual(const GpuArch& gpu) { return "__kernels-" + gpu.name(); }

bool is_virtual(const std::string& name) { return name.rfind("__", 0) == 0; }

std::string rule_origin(const matrix::Rule& rule) { return "rule `" + rule.id + "`"; }

bool add_curated_records(Translation& translation, const std::string& name) {
  CuratedRecords* curated = translation.curated.get();
  if (curated == nullptr || !curated->made.insert(name).second) return false;
  const matrix::Package* package = curated->inputs.matrix.find_package(name);
  if (package == nullptr) return false;
  for (const auto& build : package->versions) curated->records.add(build, translation);
  return true;
}

std::vector<solver::Dependency> rule_requirements(const Translation& translation,
                                                  const std::string& name,
                                                  const core::Version& version) {
  std::vector<solver::Dependency> out;
  for (const matrix::Rule* rule : translation.binding_rules) {
    if (rule_binds(*rule, name, version))
      out.push_back(dependency_of(rule->then, rule_origin(*rule)));
  }
  return out;
}

Translation translate(const LockInputs& inputs, ExtrasAsked extras, RecordScope scope,
                      const std::vector<solver::Preference>* merge_alike_later) {
  Translation out;
  out.scope = scope;
  out.extras = std::move(extras);
  std::vector<const matrix::Rule*> active;
  for (const auto& rule : inputs.matrix.rules) {
    if (!rule_context_holds(rule, inputs)) continue;
    active.push_back(&rule);
    if (rule.kind == matrix::RuleKind::requires_ && !rule.when_packages.empty())
      out.binding_rules.push_back(&rule);
  }
  if (inputs.profile != nullptr) {
    const std::string origin = "profile " + inputs.profile->name;
    const core::MarkerEnvironment env = inputs.target.marker_environment();
    for (const auto& requirement : inputs.profile->requirements) {
      const auto applies = requirement.marker.evaluate(env);
      if (applies && !*applies) continue;
      out.request.requirements.push_back(dependency_of(requirement, origin));
    }
    for (const auto& preferred : inputs.profile->preferred) {
      out.request.preferred.push_back({core::normalize_name(preferred.name), preferred.specifier});
    }
  }
  for (const auto& user : inputs.requirements) {
    out.request.requirements.push_back(dependency_of(user.requirement, user.origin));
  }
  for (const matrix::Rule* rule : active) add_rule(*rule, out);
  add_observed(inputs, out);
  // Last: the request's requirements decide which records are made.
  add_records(inputs, out, merge_alike_later);
  return out;
}

ExtrasAsked requested_extras(const LockInputs& inputs) {
  ExtrasAsked out;
  auto add = [&](const core::Requirement& r) {
    for (const auto& extra : r.extras) out[core::normalize_name(r.name)].insert(extra);
  };
  if (inputs.profile != nullptr) {
    for (const auto& requirement : inputs.profile->requirements) add(requirement);
  }
  for (const auto& user : inputs.requirements) add(user.requirement);
  return out;
}

namespace {

// The preferences of the conditional `prefer` rules that hold, in rule order, when the records
// and the request decide every rule; nullopt when some rule needs a solution to tell.
std::optional<std::vector<solver::Preference>> decided_preferences(const Translation& translation) {
  const ForcedPackages forced(translation.database, translation.request);
  std::vector<solver::Preference> out;
  for (const matrix::Rule* rule : translation.conditional_preferences) {
    const matrix::Truth holds = forced.package_conditions(*rule);
    if (holds == matrix::Truth::unknown) return std::nullopt;
    if (holds == matrix::Truth::yes)
      out.push_back({core::normalize_name(rule->then.name), rule->then.specifier});
  }
  return out;
}

}  // namespace

std::variant<solver::Solution, solver::Unsolvable> solve_with_preferences(
    Translation& translation, const LockInputs& inputs) {
  if (translation.conditional_preferences.empty()) {
    return solver::solve(translation.database, translation.request);
  }
  auto& preferred = translation.request.preferred;
  const std::size_t given = preferred.size();
  // When every rule is decided either way, the first solution would find exactly these
  // preferences holding: solving once with them gives the second solve's answer.
  if (auto decided = decided_preferences(translation)) {
    mirror_to_extra_records(translation, *decided);
    preferred.insert(preferred.end(), decided->begin(), decided->end());
    auto result = solver::solve(translation.database, translation.request);
    if (decided->empty() || std::holds_alternative<solver::Solution>(result)) return result;
    // Unsolvable with or without preferences; the explanation is that of the request as given.
    preferred.resize(given);
    return solver::solve(translation.database, translation.request);
  }
  // Otherwise the second solve reuses the first one's pool: only preference jobs are added,
  // which is what a request holding them from the start gives (solver::Session).
  solver::Session session(translation.database, translation.request);
  auto result = session.solve();
  const auto* first = std::get_if<solver::Solution>(&result);
  if (first == nullptr) return result;
  matrix::Selection selection;
  for (const auto& chosen : first->packages) {
    if (!is_virtual(chosen.name)) selection.pins[chosen.name] = chosen.version;
  }
  selection.target = matrix_target(inputs.target);
  selection.profile = inputs.profile;
  std::vector<solver::Preference> added;
  for (const matrix::Rule* rule : translation.conditional_preferences) {
    matrix::Rule packages_only = *rule;
    packages_only.when_target = {};
    packages_only.when_profiles.clear();
    if (matrix::when_holds(packages_only, selection) != matrix::Truth::yes) continue;
    const std::string name = core::normalize_name(rule->then.name);
    // A preference the first solution meets already (its package at a preferred version, or
    // absent: a favour installs nothing) would steer no choice of a second solve.
    const auto chosen = selection.pins.find(name);
    if (chosen == selection.pins.end() || rule->then.specifier.contains(chosen->second, true))
      continue;
    added.push_back({name, rule->then.specifier});
  }
  if (added.empty()) return result;
  mirror_to_extra_records(translation, added);
  preferred.insert(preferred.end(), added.begin(), added.end());
  session.prefer(std::move(added));
  return session.solve();
}

}  // namespace bevenv::app
