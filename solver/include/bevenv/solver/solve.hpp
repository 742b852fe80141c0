#pragma once
#include <variant>

#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"
#include "bevenv/solver/solution.hpp"

namespace bevenv::solver {

// Resolves `request` against `database` with libsolv. An unsatisfiable request is a value.
std::variant<Solution, Unsolvable> solve(const Database& database, const Request& request);

}  // namespace bevenv::solver
