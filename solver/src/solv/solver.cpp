#include "solv/solver.hpp"

#include <stdexcept>

#include "solv/pool.hpp"

namespace bevenv::solver::solv {

Solver::Solver(PackagePool& pool) : solver_(solver_create(pool.raw())) {
  if (!solver_) throw std::bad_alloc();
}

Solver::~Solver() = default;

void Solver::set_flag(int flag, bool value) { solver_set_flag(solver_.get(), flag, value ? 1 : 0); }

unsigned Solver::solve(Queue& jobs) {
  return static_cast<unsigned>(solver_solve(solver_.get(), jobs.raw()));
}

std::vector<Id> Solver::problems() {
  std::vector<Id> result;
  for (Id p = solver_next_problem(solver_.get(), 0); p != 0;
       p = solver_next_problem(solver_.get(), p))
    result.push_back(p);
  return result;
}

std::vector<Id> Solver::problem_rules(Id problem) {
  Queue rules;
  solver_findallproblemrules(solver_.get(), problem, rules.raw());
  return {rules.ids().begin(), rules.ids().end()};
}

namespace {

RuleKind kind_of(int type) {
  switch (type) {
    case SOLVER_RULE_JOB:
      return RuleKind::job;
    case SOLVER_RULE_JOB_NOTHING_PROVIDES_DEP:
      return RuleKind::job_unprovided;
    case SOLVER_RULE_PKG_REQUIRES:
      return RuleKind::requires_;
    case SOLVER_RULE_PKG_NOTHING_PROVIDES_DEP:
      return RuleKind::unprovided;
    case SOLVER_RULE_PKG_CONFLICTS:
      return RuleKind::conflicts;
    case SOLVER_RULE_PKG_SAME_NAME:
    case SOLVER_RULE_PKG_IMPLICIT_OBSOLETES:
      return RuleKind::same_name;
    case SOLVER_RULE_UPDATE:
    case SOLVER_RULE_FEATURE:
      return RuleKind::update;
    default:
      break;
  }
  // The package rules are the range SOLVER_RULE_PKG .. SOLVER_RULE_UPDATE (libsolv's rules.h).
  if (type >= SOLVER_RULE_PKG && type < SOLVER_RULE_UPDATE) return RuleKind::other_package_rule;
  return RuleKind::other;
}

}  // namespace

std::vector<RuleInfo> Solver::rule_infos(Id rule) {
  Queue infos;
  solver_allruleinfos(solver_.get(), rule, infos.raw());
  std::vector<RuleInfo> result;
  for (std::size_t i = 0; i + 3 < infos.size(); i += 4) {
    result.push_back(
        {kind_of(infos[i]), infos[i + 1], infos[i + 2], infos[i + 3], static_cast<int>(infos[i])});
  }
  return result;
}

std::string Solver::describe(const RuleInfo& info) {
  return solver_problemruleinfo2str(solver_.get(), static_cast<SolverRuleinfo>(info.raw_type),
                                    info.source, info.target, info.dep);
}

Transaction Solver::transaction() { return Transaction(solver_create_transaction(solver_.get())); }

}  // namespace bevenv::solver::solv
