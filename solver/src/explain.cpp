#include "explain.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "explain_text.hpp"

namespace bevenv::solver::detail {
namespace {

struct ConflictFact {
  SolvableId other;
  StepKind kind = StepKind::conflicts;  // conflicts or same_name
  std::vector<std::string> origins;
};

// The problem's rules, sorted by the solvable they are about.
struct Facts {
  std::vector<JobId> root_jobs;  // jobs of root requirements, in request order
  std::unordered_map<SolvableId, std::vector<DepId>> requires_;
  std::unordered_map<SolvableId, std::vector<ConflictFact>> conflicts;
  std::unordered_map<SolvableId, std::vector<std::string>> forbidden;  // solvable -> origins
  std::vector<SolvableId> locked;                                      // system solvables involved
  std::vector<std::string> described;  // libsolv's own words, when nothing else explains
};

template <class T>
void push_unique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// A version ladder's rules (see VersionLadders::add) say, together, that two
// versions of one name cannot both be installed; `climbers` are versions whose step onto
// their ladder is in the problem, `rung_conflicts` the (version, rung) conflicts.
struct LadderFacts {
  std::vector<SolvableId> climbers;
  std::vector<std::pair<SolvableId, SolvableId>> rung_conflicts;
};

// Only package rules name solvables and dependencies; a job rule's source is a job index.
bool is_ladder_rule(const Universe& universe, const solv::RuleInfo& info) {
  if (!info.is_package_rule()) return false;
  return universe.ladders().rung(info.source()) != nullptr ||
         universe.ladders().rung(info.target()) != nullptr ||
         universe.ladders().is_rung_dep(info.dep());
}

void note_ladder_rule(const Universe& universe, const solv::RuleInfo& info, LadderFacts& ladder) {
  if (info.kind == solv::RuleKind::requires_ && universe.ladders().rung(info.source()) == nullptr) {
    push_unique(ladder.climbers, info.source());
  } else if (info.kind == solv::RuleKind::conflicts &&
             universe.ladders().rung(info.target()) != nullptr) {
    push_unique(ladder.rung_conflicts, std::make_pair(info.source(), info.target()));
  }
}

// Told as libsolv's pairwise rules would be: each version that conflicts with a rung against
// each version of the problem that climbs to it, oldest first so that the versions of a
// conflict list in order.
void add_same_name_facts(const Universe& universe, LadderFacts& ladder, Facts& facts) {
  auto position = [&](SolvableId version) {
    const Rung* place = universe.ladders().version_rung(version);
    return place == nullptr ? std::size_t{0} : place->position;
  };
  std::sort(ladder.climbers.begin(), ladder.climbers.end(),
            [&](SolvableId a, SolvableId b) { return position(a) < position(b); });
  std::sort(ladder.rung_conflicts.begin(), ladder.rung_conflicts.end(),
            [&](const auto& a, const auto& b) { return position(a.first) < position(b.first); });
  for (const auto& [version, aux] : ladder.rung_conflicts) {
    for (SolvableId other : ladder.climbers) {
      if (other == version || !universe.ladders().climbs_to(other, aux)) continue;
      facts.conflicts[version].push_back({other, StepKind::same_name, {}});
      facts.conflicts[other].push_back({version, StepKind::same_name, {}});
    }
  }
}

Facts gather(const Universe& universe, solv::Solver& solver, solv::ProblemId problem) {
  Facts facts;
  LadderFacts ladder;
  for (solv::RuleId rule : solver.problem_rules(problem)) {
    for (const solv::RuleInfo& info : solver.rule_infos(rule)) {
      if (is_ladder_rule(universe, info)) {
        note_ladder_rule(universe, info, ladder);
        continue;
      }
      push_unique(facts.described, solver.describe(info));
      switch (info.kind) {
        case solv::RuleKind::job:
        case solv::RuleKind::job_unprovided: {
          const JobInfo* job = universe.job_info(info.job());
          if (job == nullptr) break;
          if (job->kind == JobKind::requirement) {
            push_unique(facts.root_jobs, info.job());
          } else if (job->kind == JobKind::lock) {
            push_unique(facts.locked, info.job_solvable());
          } else if (job->kind == JobKind::forbid) {
            const std::string& origin = universe.request().conflicts[job->index].origin;
            for (SolvableId p : universe.candidates(job->dep)) {
              push_unique(facts.forbidden[p], origin);
            }
          }
          break;
        }
        case solv::RuleKind::requires_:
        case solv::RuleKind::unprovided:
          if (universe.keys().is_known(info.dep())) {
            push_unique(facts.requires_[info.source()], info.dep());
          }
          break;
        case solv::RuleKind::conflicts: {
          const auto origins = universe.conflict_origins(info.source(), info.dep());
          facts.conflicts[info.source()].push_back({info.target(), StepKind::conflicts, origins});
          facts.conflicts[info.target()].push_back({info.source(), StepKind::conflicts, origins});
          break;
        }
        case solv::RuleKind::same_name:
          facts.conflicts[info.source()].push_back({info.target(), StepKind::same_name, {}});
          facts.conflicts[info.target()].push_back({info.source(), StepKind::same_name, {}});
          break;
        case solv::RuleKind::update:
          break;  // "keep the system package": already said by the conflict it causes
        case solv::RuleKind::other_package_rule:
        case solv::RuleKind::other:
          break;
      }
    }
  }
  add_same_name_facts(universe, ladder, facts);
  std::sort(facts.root_jobs.begin(), facts.root_jobs.end());
  return facts;
}

std::vector<std::string> available_versions(const Universe& universe, const std::string& name) {
  std::vector<core::Version> versions;
  for (const Provider& provider : universe.providers().list(name))
    versions.push_back(*provider.version);
  std::sort(versions.begin(), versions.end());
  std::vector<std::string> result;
  for (const auto& v : versions) push_unique(result, v.to_string());
  return result;
}

bool only_system(const Universe& universe, const std::string& name) {
  const auto& providers = universe.providers().list(name);
  return !providers.empty() &&
         std::all_of(providers.begin(), providers.end(), [&](const Provider& p) {
           return universe.database().record(universe.record_of(p.solvable)).kind ==
                  RecordKind::system;
         });
}

class TreeBuilder {
 public:
  TreeBuilder(const Universe& universe, const Facts& facts) : universe_(universe), facts_(facts) {}

  Problem build() {
    // A conflict is told at whichever side the reader meets second, so the first pass only
    // records the order in which candidates are met.
    for (JobId job : facts_.root_jobs) walk_order(universe_.job_info(job)->dep);
    Problem problem;
    for (JobId job : facts_.root_jobs) {
      const Dependency& root = universe_.request().requirements[universe_.job_info(job)->index];
      const DepId dep = universe_.job_info(job)->dep;
      ExplanationStep step = wants_step(root, universe_.keys().key_of(dep));
      step.children = explain_dep(dep);
      problem.steps.push_back(std::move(step));
    }
    // System packages are the other roots: what rules them out when no requirement does.
    for (SolvableId p : facts_.locked) {
      std::vector<Reason> reasons = reasons_of(p);
      if (reasons.empty()) continue;
      ExplanationStep step;
      step.kind = StepKind::other;
      step.package = std::string(universe_.pool().solvable_name(p));
      step.versions = {universe_.version_text(p)};
      step.text = "the system has " + step.package + " " + step.versions[0];
      for (const Reason& reason : reasons) {
        step.children.push_back(reason.to_step(step.package, step.versions, true, true));
      }
      problem.steps.push_back(std::move(step));
    }
    if (!problem.steps.empty()) return problem;
    for (const std::string& text : facts_.described) {
      problem.steps.push_back({StepKind::other, text, {}, {}, {}, {}, {}, {}, {}});
    }
    return problem;
  }

 private:
  void walk_order(DepId dep) {
    for (SolvableId p : universe_.candidates(dep)) {
      if (!order_.emplace(p, order_.size()).second) continue;
      if (auto it = facts_.requires_.find(p); it != facts_.requires_.end()) {
        for (DepId next : it->second) walk_order(next);
      }
    }
  }

  bool told_here(SolvableId here, SolvableId other) const {
    const auto mine = order_.find(here);
    const auto theirs = order_.find(other);
    if (theirs == order_.end()) return true;
    return mine != order_.end() && mine->second > theirs->second;
  }

  // Why one candidate cannot be installed, each reason with the subject left out.
  std::vector<Reason> reasons_of(SolvableId p) {
    std::vector<Reason> reasons;
    if (!expanded_.insert(p).second) return reasons;
    if (auto it = facts_.forbidden.find(p); it != facts_.forbidden.end()) {
      reasons.push_back(Reason::forbidden(it->second));
    }
    if (auto it = facts_.requires_.find(p); it != facts_.requires_.end()) {
      for (DepId dep : it->second) {
        const Dependency* requirement = universe_.requirement_of(p, dep);
        reasons.push_back(Reason::requires_(universe_.keys().key_of(dep).display,
                                            requirement ? requirement->origin.str() : std::string(),
                                            explain_dep(dep)));
      }
    }
    if (auto it = facts_.conflicts.find(p); it != facts_.conflicts.end()) {
      // Conflicts with several versions of one package collapse into one reason.
      std::map<std::pair<std::string, StepKind>, Reason> by_other;
      for (const ConflictFact& fact : it->second) {
        if (!told_here(p, fact.other)) continue;
        const std::string other_name(universe_.pool().solvable_name(fact.other));
        auto key = std::make_pair(other_name, fact.kind);
        auto [slot, inserted] = by_other.try_emplace(key, Reason::conflict(fact.kind, other_name));
        push_unique(slot->second.other_versions, universe_.version_text(fact.other));
        slot->second.other_is_system = slot->second.other_is_system || is_system(fact.other);
        for (const auto& origin : fact.origins) push_unique(slot->second.origins, origin);
      }
      for (auto& [key, reason] : by_other) reasons.push_back(std::move(reason));
    }
    return reasons;
  }

  const core::Version& version_of(SolvableId p) const {
    return universe_.database().record(universe_.record_of(p)).version;
  }

  bool is_system(SolvableId p) const {
    return universe_.is_record(p) &&
           universe_.database().record(universe_.record_of(p)).kind == RecordKind::system;
  }

  // Memoized so that versions requiring the same dependency print alike and group together.
  std::vector<ExplanationStep> explain_dep(DepId dep) {
    if (auto it = explained_.find(dep); it != explained_.end()) return it->second;
    std::vector<ExplanationStep> steps = explain_dep_once(dep);
    explained_.emplace(dep, steps);
    return steps;
  }

  std::vector<ExplanationStep> explain_dep_once(DepId dep) {
    const DepKey& key = universe_.keys().key_of(dep);
    const std::vector<SolvableId> candidates = universe_.candidates(dep);
    if (candidates.empty()) {
      return {nothing_matches_step(key, available_versions(universe_, key.name),
                                   only_system(universe_, key.name))};
    }

    // Candidates with the same reasons are told once, as a group of versions; the origins of
    // the grouped reasons are merged.
    std::vector<CandidateGroup> groups;
    std::vector<std::vector<SolvableId>> members;
    for (SolvableId p : candidates) {
      std::vector<Reason> reasons = reasons_of(p);
      if (reasons.empty()) continue;
      const std::string name(universe_.pool().solvable_name(p));
      const std::string signature = name + '\n' + signature_of(reasons);
      auto same = std::find_if(groups.begin(), groups.end(),
                               [&](const CandidateGroup& g) { return g.signature == signature; });
      if (same == groups.end()) {
        groups.push_back({signature, name, {}, std::move(reasons)});
        members.emplace_back();
        same = groups.end() - 1;
      } else {
        for (std::size_t i = 0; i < reasons.size(); ++i) {
          for (auto& origin : reasons[i].origins) push_unique(same->reasons[i].origins, origin);
        }
      }
      members[static_cast<std::size_t>(same - groups.begin())].push_back(p);
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      std::sort(members[g].begin(), members[g].end(),
                [&](SolvableId a, SolvableId b) { return version_of(a) < version_of(b); });
      for (SolvableId p : members[g]) push_unique(groups[g].versions, universe_.version_text(p));
    }
    const bool single_pin = candidates.size() == 1 && is_exact_pin(*key.specifier);
    std::vector<ExplanationStep> steps;
    for (CandidateGroup& group : groups) {
      const bool whole_range = group.versions.size() == candidates.size();
      for (Reason& reason : group.reasons) {
        steps.push_back(reason.to_step(group.name, group.versions, single_pin, whole_range));
      }
    }
    return steps;
  }

  const Universe& universe_;
  const Facts& facts_;
  std::unordered_map<SolvableId, std::size_t> order_;
  std::unordered_set<SolvableId> expanded_;
  std::unordered_map<DepId, std::vector<ExplanationStep>> explained_;
};

}  // namespace

Unsolvable explain_unmatched_roots(const Universe& universe) {
  Problem problem;
  const auto& roots = universe.request().requirements;
  for (std::size_t i = 0; i < roots.size(); ++i) {
    const DepId dep = universe.root_dep(i);
    if (!universe.candidates(dep).empty()) continue;
    const DepKey& key = universe.keys().key_of(dep);
    ExplanationStep step = wants_step(roots[i], key);
    step.children.push_back(nothing_matches_step(key, available_versions(universe, key.name),
                                                 only_system(universe, key.name)));
    problem.steps.push_back(std::move(step));
  }
  Unsolvable result;
  if (!problem.steps.empty()) result.problems.push_back(std::move(problem));
  return result;
}

Unsolvable explain(const Universe& universe, solv::Solver& solver) {
  Unsolvable result;
  std::set<std::vector<std::string>> seen;
  for (solv::ProblemId problem : solver.problems()) {
    Facts facts = gather(universe, solver, problem);
    Problem tree = TreeBuilder(universe, facts).build();
    Unsolvable single{{tree}};
    if (seen.insert(render_explanation(single)).second) result.problems.push_back(std::move(tree));
  }
  return result;
}

}  // namespace bevenv::solver::detail
