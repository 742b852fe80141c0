#pragma once
// RAII over libsolv's Solver: solving a job queue and reading back problems and their rules.
#include <memory>
#include <string>
#include <vector>

#include "solv/c_api.hpp"
#include "solv/ids.hpp"
#include "solv/jobs.hpp"
#include "solv/transaction.hpp"

namespace bevenv::solver::solv {

class PackagePool;

// What a rule says, in the terms the explanation needs (libsolv's SOLVER_RULE_* grouped).
enum class RuleKind {
  job,                 // a job of the request
  job_unprovided,      // a job whose dependency nothing provides
  requires_,           // a package requires a dependency
  unprovided,          // a package requires a dependency nothing provides
  conflicts,           // two packages conflict
  same_name,           // two versions of one name (or an implicit obsoletes)
  other_package_rule,  // another rule between packages
  update,              // keep the installed (system) package
  other,
};

// One reason libsolv recorded for a rule. What its three ids are depends on the kind: the
// accessors say which reading applies.
class RuleInfo {
 public:
  RuleInfo(RuleKind rule_kind, int raw_type, Id source, Id target, Id dep)
      : kind(rule_kind), raw_type_(raw_type), source_(source), target_(target), dep_(dep) {}

  RuleKind kind = RuleKind::other;

  // Whether it is a rule between packages (its source and target are solvables, not a job).
  bool is_package_rule() const {
    return kind == RuleKind::requires_ || kind == RuleKind::unprovided ||
           kind == RuleKind::conflicts || kind == RuleKind::same_name ||
           kind == RuleKind::other_package_rule;
  }
  // Package rules: the solvable that requires or conflicts, the other one, the dependency.
  SolvableId source() const { return SolvableId(source_); }
  SolvableId target() const { return SolvableId(target_); }
  DepId dep() const { return DepId(dep_); }
  // Job rules: the job, and what it selects when that is one solvable (a lock job's).
  JobId job() const { return JobId(source_); }
  SolvableId job_solvable() const { return SolvableId(dep_); }

 private:
  friend class Solver;
  int raw_type_ = 0;  // libsolv's own type, for describe()
  Id source_ = 0;
  Id target_ = 0;
  Id dep_ = 0;
};

class Solver {
 public:
  explicit Solver(PackagePool& pool);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  void set_flag(int flag, bool value);
  // Returns the number of problems; 0 means the jobs were satisfied.
  unsigned solve(JobQueue& jobs);

  std::vector<ProblemId> problems();
  // Every rule that takes part in `problem`, learnt rules expanded.
  std::vector<RuleId> problem_rules(ProblemId problem);
  // All reasons libsolv recorded for one rule (a rule may stem from several dependencies).
  std::vector<RuleInfo> rule_infos(RuleId rule);
  // libsolv's own sentence for a rule, used where bevenv has no better words.
  std::string describe(const RuleInfo& info);

  Transaction transaction();

 private:
  struct Free {
    void operator()(::Solver* solver) const { solver_free(solver); }
  };
  std::unique_ptr<::Solver, Free> solver_;
};

}  // namespace bevenv::solver::solv
