#pragma once
// Everything a lock depends on, gathered from flags, bevenv.toml and the matrix; hashed so
// that `lock --check` and build-image can tell when a lock is stale.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/lock.hpp"
#include "bevenv/app/target.hpp"
#include "bevenv/core/requirement.hpp"
#include "bevenv/lockfiles/model.hpp"
#include "bevenv/matrix/model.hpp"
#include "bevenv/util/exit_time.hpp"

namespace bevenv::app {

struct UserRequirement {
  core::Requirement requirement;
  std::string origin;  // `--require`, `bevenv.toml`, `requirements.txt:3`
};

// Which releases a lock's matrix holds: all, or (an offline lock, which checks that it needs
// none of them: lock_stand_ins.hpp) all but those a newer release stands for.
enum class MatrixReleases : std::uint8_t { all, without_stood_for };

struct LockInputs {
  matrix::Matrix matrix;
  // MatrixReleases::without_stood_for loaded a matrix without them (matrix::Package::stood_for).
  bool without_stood_for = false;
  std::string matrix_digest;  // sha256 over the matrix source texts, in load order
  const matrix::Profile* profile = nullptr;
  std::vector<UserRequirement> requirements;
  TargetFacts target;
  // Index sources as given (`index <url>`, `extra-index <url>`, `find-links <url>`): a changed
  // source can change the lock, so it is part of the input hash.
  std::vector<std::string> index_sources;
  std::filesystem::path output;
  lockfiles::Inputs recorded;                // what the lock's `[inputs]` says was asked
  std::vector<std::string> target_notes;     // where the target came from, when not from flags
  std::vector<std::string> target_warnings;  // a GPU profile locked for no GPU, ...
};

LockInputs gather_lock_inputs(const LockOptions& options,
                              MatrixReleases releases = MatrixReleases::all);

// One lock's inputs: first as gathered (an offline lock's without the releases a newer one
// stands for), then, where the lock finds it needs them (Translation::needs_whole_matrix, an
// explanation over every release), gathered again with every release. Both are left to the
// operating system at exit (util::ScopeOrExit).
class GatheredInputs {
 public:
  // Keeps a reference to `options`, which must outlive it.
  GatheredInputs(const LockOptions& options, LockInputs first);
  const LockInputs& first() const { return *first_; }
  const LockInputs& whole();

 private:
  const LockOptions& options_;
  util::ScopeOrExit<LockInputs> first_;
  std::optional<util::ScopeOrExit<LockInputs>> whole_;
};

// `sha256:<hex>` of the canonical text of the inputs.
std::string input_hash(const LockInputs& inputs);

}  // namespace bevenv::app
