#pragma once
// libsolv's job words (SOLVER_INSTALL | SOLVER_SOLVABLE_ONE_OF, ...) as named values, so that
// the layer above says what a job does without libsolv's constants.
#include "solv/c_api.hpp"
#include "solv/queue.hpp"

namespace bevenv::solver::solv {

enum class JobAction { install, erase, lock, favor, disfavor, multiversion };
// What the job's `what` is: one solvable, a list of solvables (PackagePool::list_id), a name
// (every solvable of it), or a dependency whose providers the job selects.
enum class JobSelect { solvable, one_of, name, provides };

inline Id job_how(JobAction action, JobSelect select) {
  Id how = 0;
  switch (action) {
    case JobAction::install:
      how = SOLVER_INSTALL;
      break;
    case JobAction::erase:
      how = SOLVER_ERASE;
      break;
    case JobAction::lock:
      how = SOLVER_LOCK;
      break;
    case JobAction::favor:
      how = SOLVER_FAVOR;
      break;
    case JobAction::disfavor:
      how = SOLVER_DISFAVOR;
      break;
    case JobAction::multiversion:
      how = SOLVER_MULTIVERSION;
      break;
  }
  switch (select) {
    case JobSelect::solvable:
      return how | SOLVER_SOLVABLE;
    case JobSelect::one_of:
      return how | SOLVER_SOLVABLE_ONE_OF;
    case JobSelect::name:
      return how | SOLVER_SOLVABLE_NAME;
    case JobSelect::provides:
      return how | SOLVER_SOLVABLE_PROVIDES;
  }
  return how;
}

// Appends the job (`action` over `what`, selected as `select`) to a job queue.
inline void push_job(Queue& jobs, JobAction action, JobSelect select, Id what) {
  jobs.push2(job_how(action, select), what);
}

}  // namespace bevenv::solver::solv
