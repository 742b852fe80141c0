#include "solv/transaction.hpp"

#include "solv/queue.hpp"

namespace bevenv::solver::solv {

std::vector<SolvableId> Transaction::installed_result() {
  Queue result;
  transaction_installedresult(transaction_.get(), result.raw());
  std::vector<SolvableId> solvables;
  for (Id p : result.ids()) solvables.emplace_back(p);
  return solvables;
}

}  // namespace bevenv::solver::solv
