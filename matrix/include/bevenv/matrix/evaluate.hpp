#pragma once
// Whether rules hold for a candidate environment: the pinned package versions, the target
// machine, and the profile being locked.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/matrix/model.hpp"

namespace bevenv::matrix {

struct TargetFacts {
  std::optional<core::Version> python;       // `3.8.18`
  std::optional<core::Version> cuda_driver;  // `535.54.03`
  std::optional<std::string> gpu_arch;       // `sm_86`
  std::optional<std::string> platform;       // `linux`
};

struct Selection {
  std::map<std::string, core::Version, std::less<>> pins;  // normalized name -> version
  TargetFacts target;
  const Profile* profile = nullptr;
};

// `unknown`: a condition needs a target fact the selection does not have.
enum class Truth : std::uint8_t { no, yes, unknown };

// Every `when` condition at once; a package condition on a package that is not pinned is false.
Truth when_holds(const Rule& rule, const Selection& selection);
// Whether the pinned version of `then`'s package satisfies its specifier (false when absent).
bool then_holds(const Rule& rule, const Selection& selection);

enum class Verdict : std::uint8_t {
  not_applicable,
  satisfied,
  violated,
  preference_unmet,
  undecided
};
Verdict check_rule(const Rule& rule, const Selection& selection);

// The versions of `name` in the matrix that `condition` matches.
std::vector<const PackageVersion*> matching_versions(const Matrix& matrix,
                                                     const PackageCondition& condition);

}  // namespace bevenv::matrix
