#pragma once
// Everything a lock depends on, gathered from flags, bevenv.toml and the matrix; hashed so
// that `lock --check` and build-image can tell when a lock is stale.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/lock.hpp"
#include "bevenv/app/target.hpp"
#include "bevenv/core/requirement.hpp"
#include "bevenv/lockfiles/model.hpp"
#include "bevenv/matrix/model.hpp"

namespace bevenv::app {

struct UserRequirement {
  core::Requirement requirement;
  std::string origin;  // `--require`, `bevenv.toml`, `requirements.txt:3`
};

struct LockInputs {
  matrix::Matrix matrix;
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

LockInputs gather_lock_inputs(const LockOptions& options);
// `sha256:<hex>` of the canonical text of the inputs.
std::string input_hash(const LockInputs& inputs);

}  // namespace bevenv::app
