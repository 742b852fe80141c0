#pragma once
// solve() with the Universe's encoding options exposed, for tests that compare encodings.
#include <variant>

#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"
#include "bevenv/solver/solution.hpp"
#include "universe.hpp"

namespace bevenv::solver::detail {

std::variant<Solution, Unsolvable> solve(const Database& database, const Request& request,
                                         const UniverseOptions& options);

}  // namespace bevenv::solver::detail
