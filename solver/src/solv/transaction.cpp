#include "solv/transaction.hpp"

#include "solv/queue.hpp"

namespace bevenv::solver::solv {

std::vector<Id> Transaction::installed_result() {
  Queue result;
  transaction_installedresult(transaction_.get(), result.raw());
  return {result.ids().begin(), result.ids().end()};
}

}  // namespace bevenv::solver::solv
