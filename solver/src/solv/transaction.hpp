#pragma once
// RAII over libsolv's Transaction: the steps from the installed set to the solved one.
#include <memory>
#include <vector>

#include "solv/c_api.hpp"
#include "solv/ids.hpp"

namespace bevenv::solver::solv {

class Transaction {
 public:
  explicit Transaction(::Transaction* transaction) : transaction_(transaction) {}

  // The solvables present once the transaction is applied (kept and newly installed).
  std::vector<SolvableId> installed_result();

 private:
  struct Free {
    void operator()(::Transaction* transaction) const { transaction_free(transaction); }
  };
  std::unique_ptr<::Transaction, Free> transaction_;
};

}  // namespace bevenv::solver::solv
