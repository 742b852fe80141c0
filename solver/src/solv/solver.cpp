#include "solv/solver.hpp"

#include <stdexcept>

#include "solv/pool.hpp"

namespace bevenv::solver::solv {

Solver::Solver(PackagePool& pool) : solver_(solver_create(pool.raw())) {
  if (!solver_) throw std::bad_alloc();
}

Solver::~Solver() = default;

void Solver::set_flag(int flag, bool value) { solver_set_flag(solver_.get(), flag, value ? 1 : 0); }

unsigned Solver::solve(JobQueue& jobs) {
  return static_cast<unsigned>(solver_solve(solver_.get(), jobs.words().raw()));
}

std::vector<ProblemId> Solver::problems() {
  std::vector<ProblemId> result;
  for (Id p = solver_next_problem(solver_.get(), 0); p != 0;
       p = solver_next_problem(solver_.get(), p))
    result.emplace_back(p);
  return result;
}

std::vector<RuleId> Solver::problem_rules(ProblemId problem) {
  Queue rules;
  solver_findallproblemrules(solver_.get(), problem.raw(), rules.raw());
  std::vector<RuleId> result;
  for (Id rule : rules.ids()) result.emplace_back(rule);
  return result;
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

std::vector<RuleInfo> Solver::rule_infos(RuleId rule) {
  Queue infos;
  solver_allruleinfos(solver_.get(), rule.raw(), infos.raw());
  std::vector<RuleInfo> result;
  for (std::size_t i = 0; i + 3 < infos.size(); i += 4) {
    const int type = static_cast<int>(infos[i]);
    result.emplace_back(kind_of(type), type, infos[i + 1], infos[i + 2], infos[i + 3]);
  }
  return result;
}

std::string Solver::describe(const RuleInfo& info) {
  return solver_problemruleinfo2str(solver_.get(), static_cast<SolverRuleinfo>(info.raw_type_),
                                    info.source_, info.target_, info.dep_);
}

Transaction Solver::transaction() { return Transaction(solver_create_transaction(solver_.get())); }

}  // namespace bevenv::solver::solv
