#pragma once
// RAII over libsolv's Solver: solving a job queue and reading back problems and their rules.
#include <memory>
#include <string>
#include <vector>

#include "solv/c_api.hpp"
#include "solv/queue.hpp"
#include "solv/transaction.hpp"

namespace bevenv::solver::solv {

class Pool;

struct RuleInfo {
  SolverRuleinfo type = SOLVER_RULE_UNKNOWN;
  Id source = 0;
  Id target = 0;
  Id dep = 0;
};

class Solver {
 public:
  explicit Solver(Pool& pool);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  void set_flag(int flag, bool value);
  // Returns the number of problems; 0 means the jobs were satisfied.
  unsigned solve(Queue& jobs);

  std::vector<Id> problems();
  // Every rule that takes part in `problem`, learnt rules expanded.
  std::vector<Id> problem_rules(Id problem);
  // All reasons libsolv recorded for one rule (a rule may stem from several dependencies).
  std::vector<RuleInfo> rule_infos(Id rule);
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
