#pragma once
// The solver explains in terms of its records, and some of those stand for facts about the
// target (`__python`, `__cuda`, `__kernels-sm_90`, `__cuda-build`, `__file-for-target`). These
// are rewritten into what they mean, naming where each target fact came from.
#include "bevenv/app/target.hpp"
#include "bevenv/solver/solution.hpp"

namespace bevenv::app {

void describe_virtuals(solver::Unsolvable& unsolvable, const TargetFacts& target);

}  // namespace bevenv::app
