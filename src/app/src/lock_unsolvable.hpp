#pragma once
// What `bevenv lock` says when no environment exists: the reason in one line when the target
// rules out every torch build a profile allows, the port that serves the target (found by
// locking it), and the solver's tree (under `-v` when the one line says enough).
#include <string>

#include "bevenv/app/lock.hpp"
#include "bevenv/app/output.hpp"
#include "bevenv/solver/solution.hpp"
#include "lock_inputs.hpp"

namespace bevenv::app {

// `bevfusion`, or `the request` without a profile.
std::string lock_subject(const LockInputs& inputs);

CommandOutput unsatisfiable(const LockOptions& options, const LockInputs& inputs,
                            solver::Unsolvable unsolvable);

}  // namespace bevenv::app
