#pragma once
// Turns libsolv's problem rules into bevenv's explanation tree.
#include "bevenv/solver/solution.hpp"
#include "solv/solver.hpp"
#include "universe.hpp"

namespace bevenv::solver::detail {

Unsolvable explain(const Universe& universe, solv::Solver& solver);

// libsolv treats an install job whose namespace dependency resolves to nothing as satisfied,
// so root requirements that nothing satisfies are found (and explained) before solving.
// Returns no problems when every root requirement has a candidate.
Unsolvable explain_unmatched_roots(const Universe& universe);

}  // namespace bevenv::solver::detail
