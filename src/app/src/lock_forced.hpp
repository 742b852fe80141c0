#pragma once
// What every solution of a request holds, read from the request and the records alone: which
// packages are certainly installed and which versions they can take. The lock uses it to apply
// `prefer` rules bound to packages before the first solve when their conditions are decided
// either way, instead of solving once to find out and once more with the preferences.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bevenv/matrix/evaluate.hpp"
#include "bevenv/matrix/model.hpp"
#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"

namespace bevenv::app {

class ForcedPackages {
 public:
  ForcedPackages(const solver::Database& database, const solver::Request& request);

  // `yes`: the rule's package conditions hold in every solution; `no`: in none; `unknown`:
  // only a solution tells. Target and profile conditions are not looked at.
  matrix::Truth package_conditions(const matrix::Rule& rule) const;

 private:
  matrix::Truth condition(const matrix::PackageCondition& condition) const;

  const solver::Database& database_;
  std::set<std::string> provided_;  // names some record provides besides its own
  // Certainly installed names -> the records one of which is chosen (a superset).
  std::map<std::string, std::set<solver::RecordId>> forced_;
};

}  // namespace bevenv::app
