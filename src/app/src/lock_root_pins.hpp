#pragma once
// The versions a request's own requirements leave possible. A root requirement holds in every
// solution, so a build it does not admit is never chosen: a translation for the installable
// scope makes no record of it and follows none of its requirements. Profiles pin a few dozen
// packages; the other releases of those, and what only they require, are a quarter to a third
// of what an offline profile lock would otherwise translate and solve over.
// (Following the requirements every possible version of a pinned package shares narrowed a
// profile lock's records by a further 2-3% and cost more than that saved.)
#include <string>
#include <unordered_map>
#include <vector>

#include "bevenv/core/specifier.hpp"
#include "bevenv/matrix/model.hpp"
#include "bevenv/solver/request.hpp"

namespace bevenv::app {

class RootPins {
 public:
  // Keeps pointers to the specifiers of `request`, which must not change while this lives.
  RootPins(const solver::Request& request, const matrix::Matrix& matrix);

  // Whether a root requirement on the build's name does not admit its version.
  bool rules_out(const matrix::PackageVersion& build) const;

 private:
  // By package name: the specifiers of the root requirements on it.
  std::unordered_map<std::string, std::vector<const core::SpecifierSet*>> pins_;
};

}  // namespace bevenv::app
