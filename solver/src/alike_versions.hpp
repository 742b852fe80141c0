#pragma once
// Versions that make no difference to a solve. Two records of one name whose requirements,
// conflicts and flags are the same, and whose versions every specifier on that name in the
// universe (requirements, conflicts, preferences) treats alike, are one choice: any solution
// holding the older holds the newer in its place, and libsolv, which tries the newest first,
// picks the newer. Only the newest of each such set needs to enter the pool; an offline lock
// over the generated layer drops about half of its records so (Request::merge_alike_versions).
#include <vector>

#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"

namespace bevenv::solver::detail {

// Clears `included` for every record that an included, newer alike record stands for.
void drop_alike_versions(const Database& database, const Request& request,
                         std::vector<bool>& included);

}  // namespace bevenv::solver::detail
