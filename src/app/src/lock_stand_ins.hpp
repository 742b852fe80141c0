#pragma once
// Offline locks that merge alike versions (solver::Request::merge_alike_versions): which of the
// releases the matrix marks `newer_stands_for` (matrix/src/stand_ins.hpp) this lock leaves out
// before making records. The matrix checked the specifiers it states itself; those only a lock
// knows (a user's requirements, a replaced lock's pins, observed results: the request and the
// preferences added after translation) are checked here, and a package whose extras the
// request asks stays whole. What is left out is a release the solver can never choose: a newer
// one of its run is as good in every way the lock can tell.
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
  // Whether a release that a matrix loaded without them left out (matrix::Package::stood_for)
  // would be kept: such a lock needs the whole matrix.
  bool keeps_one_of(const matrix::Matrix& matrix) const;

 private:
  // The lock's specifiers on one name, by how the solver reads them.
  struct Stated {
    std::vector<const core::SpecifierSet*> required;  // requirements and conflicts: must hold
    std::vector<const core::SpecifierSet*> favored;   // preferences, a replaced lock's pins
    std::vector<const core::SpecifierSet*> disfavored;
  };
  static void add(std::vector<const core::SpecifierSet*>& to, const core::SpecifierSet& set);
  Stated& on(const std::string& name);
  // Whether `newer`, a newer release of the run of `release`, is as good as it to this lock.
  static bool as_good(const Stated& stated, const core::Version& newer,
                      const core::Version& release);
  // Whether a release of `package` left out of the matrix would be kept (as keeps_one_of()).
  static bool keeps_one_of(const matrix::Package& package, const Stated& stated);

  std::unordered_map<std::string, Stated> on_;
  const ExtrasAsked& extras_;
};

}  // namespace bevenv::app
