#pragma once
// libsolv's job words (SOLVER_INSTALL | SOLVER_SOLVABLE_ONE_OF, ...) as named values, so that
// the layer above says what a job does without libsolv's constants, and a job queue whose
// entries say by their type what they select.
#include <cstddef>

#include "solv/c_api.hpp"
#include "solv/ids.hpp"
#include "solv/queue.hpp"

namespace bevenv::solver::solv {

// Each value is libsolv's own word, so that a job's word is the two or-ed together.
enum class JobAction : Id {
  install = SOLVER_INSTALL,
  erase = SOLVER_ERASE,
  lock = SOLVER_LOCK,
  favor = SOLVER_FAVOR,
  disfavor = SOLVER_DISFAVOR,
  multiversion = SOLVER_MULTIVERSION,
};
// What the job's `what` is: one solvable, a list of solvables (PackagePool::list_id), a name
// (every solvable of it), or a dependency whose providers the job selects.
enum class JobSelect : Id {
  solvable = SOLVER_SOLVABLE,
  one_of = SOLVER_SOLVABLE_ONE_OF,
  name = SOLVER_SOLVABLE_NAME,
  provides = SOLVER_SOLVABLE_PROVIDES,
};

inline Id job_how(JobAction action, JobSelect select) {
  return static_cast<Id>(action) | static_cast<Id>(select);
}

// The jobs of one solve. What a job selects follows from the type of its `what`, so a job
// cannot name a solvable while selecting by dependency.
class JobQueue {
 public:
  JobId add(JobAction action, SolvableId solvable) {
    return push(action, JobSelect::solvable, solvable.raw());
  }
  JobId add(JobAction action, SolvableListId one_of) {
    return push(action, JobSelect::one_of, one_of.raw());
  }
  JobId add(JobAction action, StringId name) { return push(action, JobSelect::name, name.raw()); }
  JobId add(JobAction action, DepId providers_of) {
    return push(action, JobSelect::provides, providers_of.raw());
  }
  std::size_t size() const { return words_.size() / 2; }

  Queue& words() { return words_; }

 private:
  JobId push(JobAction action, JobSelect select, Id what) {
    const JobId job(static_cast<Id>(words_.size()));
    words_.push2(job_how(action, select), what);
    return job;
  }

  Queue words_;
};

// The job's place among its queue's jobs (libsolv names a job by its offset, two words a job).
inline std::size_t position_of(JobId job) { return static_cast<std::size_t>(job.raw()) / 2; }

}  // namespace bevenv::solver::solv
