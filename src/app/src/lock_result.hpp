#pragma once
// A solver solution becomes a Lockfile: pins with sources and artifacts, the reasons for each
// pin, the rules that shaped the result, the CUDA environment and the compiled-ops builds.
#include "bevenv/lockfiles/model.hpp"
#include "bevenv/solver/solution.hpp"
#include "lock_inputs.hpp"
#include "lock_translate.hpp"

namespace bevenv::app {

lockfiles::Lockfile build_lockfile(const LockInputs& inputs, const Translation& translation,
                                   const solver::Solution& solution);

}  // namespace bevenv::app
