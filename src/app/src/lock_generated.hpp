#pragma once
// Offline locks from the generated layer: every pin whose matrix record lists artifacts gets the
// one that fits the target best (a wheel by PEP 425 tag rank, else the sdist with its build
// step), with URL, sha256 and size, without touching the network.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "bevenv/index/wheel.hpp"
#include "bevenv/lockfiles/model.hpp"
#include "bevenv/matrix/model.hpp"
#include "lock_inputs.hpp"

namespace bevenv::app {

// The record a locked package stands for: its install version and its variant (the local part,
// which keeps `cu113.torch1.10.0` apart from other builds of one version, and the source build
// of mmcv-full 1.6.0 apart from OpenMMLab's wheels that also install as `1.6.0`); null when
// the matrix has none.
const matrix::PackageVersion* matrix_record_of(const matrix::Matrix& matrix,
                                               const lockfiles::Package& p);

// The files of releases that fit the target, and the one to install. Translate asks whether any
// fits of every release: some 11,000 files, most of which share a few dozen tag sets, so the
// rank is kept per tag set instead of parsing every name. `string_view`s into the file names:
// the matrix must outlive it.
class FileFit {
 public:
  explicit FileFit(const TargetFacts& target);
  // Whether best() would find a file, stopping at the first that fits.
  bool any(const matrix::PackageVersion& record);
  // The artifact of `record` to install on the target (a wheel by PEP 425 tag rank, else its
  // first sdist); null when it lists none that fits.
  const matrix::Artifact* best(const matrix::PackageVersion& record);

 private:
  // The rank of a wheel on the target (lower is better); nullopt where it does not install.
  std::optional<std::size_t> wheel_rank(std::string_view filename, std::string_view tags);
  index::TagRanking ranking_;
  std::unordered_map<std::string_view, std::optional<std::size_t>> by_tags_;  // `py3-none-any`
};

// The sdist a source build compiles (`build_step.sdist`): the record's first sdist; null when the
// matrix lists none (translate keeps such a record out of the solution).
const matrix::Artifact* sdist_of(const matrix::PackageVersion& record);
lockfiles::Artifact lock_artifact(const matrix::Artifact& artifact);

// Gives each package of `lock` its record's best artifact; packages whose records list none keep
// what they have, and source builds keep theirs (lock_result.cpp gives them their sdist).
void attach_matrix_artifacts(const LockInputs& inputs, lockfiles::Lockfile& lock);

}  // namespace bevenv::app
