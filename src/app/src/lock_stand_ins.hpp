#pragma once
// Offline locks that merge alike versions (solver::Request::merge_alike_versions): which of the
// releases the matrix marks `newer_stands_for` (matrix/src/stand_ins.hpp) this lock leaves out
// before making records. The matrix checked the specifiers it states itself; those only a lock
// knows (a user's requirements, a replaced lock's pins, observed results: the request and the
// preferences added after translation) are checked here, and a package whose extras the
// request asks stays whole. What is left out is what the solver would drop.
#include <string>
#include <unordered_map>
#include <vector>

#include "bevenv/matrix/model.hpp"
#include "bevenv/solver/request.hpp"
#include "lock_translate.hpp"

namespace bevenv::app {

class StandIns {
 public:
  // Keeps pointers into `request`, `later` and `extras`, which must outlive it unchanged.
  StandIns(const solver::Request& request, const std::vector<solver::Preference>& later,
           const ExtrasAsked& extras);

  // Whether release `index` of `package` is left out.
  bool leaves_out(const matrix::Package& package, std::size_t index) const;

 private:
  void add(const std::string& name, const core::SpecifierSet& set);

  std::unordered_map<std::string, std::vector<const core::SpecifierSet*>> on_;
  const ExtrasAsked& extras_;
};

}  // namespace bevenv::app
