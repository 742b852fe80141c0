#pragma once
#include <memory>
#include <variant>
#include <vector>

#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"
#include "bevenv/solver/solution.hpp"

namespace bevenv::solver {

// Resolves `request` against `database` with libsolv. An unsatisfiable request is a value.
std::variant<Solution, Unsolvable> solve(const Database& database, const Request& request);

namespace detail {
class Universe;
}

// One request solved more than once, with preferences added between the solves (the app's
// `prefer` rules bound to packages, known once a first solution shows which packages are in):
// the libsolv pool is built once. After prefer(), solve() answers what solve(database, request)
// answers for the request with those preferences appended to `preferred`.
class Session {
 public:
  // `database` must outlive the session and stay unchanged while it lives.
  Session(const Database& database, Request request);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  std::variant<Solution, Unsolvable> solve();
  // Appends to the request's preferences; they rank as the last ones given.
  void prefer(std::vector<Preference> more);
  const Request& request() const { return *request_; }

 private:
  // Owned on the heap: the universe keeps a reference to it.
  std::unique_ptr<Request> request_;
  std::unique_ptr<detail::Universe> universe_;
};

}  // namespace bevenv::solver
