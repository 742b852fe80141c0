#pragma once
// Loading the matrix the way every command does: the embedded data, then the directories of
// `BEVENV_MATRIX_PATH` (`:`-separated), then `--matrix DIR` flags, later ones winning.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/matrix/loader.hpp"
#include "bevenv/matrix/model.hpp"

namespace bevenv::app {

struct MatrixOptions {
  std::vector<std::filesystem::path> overlays;  // from `--matrix DIR`, in order
  bool known_packages_only = true;              // matrix::LoadOptions::known_packages_only
  bool without_generated_releases = false;      // matrix::LoadOptions::without_generated_releases
  bool without_stood_for = false;               // matrix::LoadOptions::without_stood_for
};

// The overlay directories in precedence order: `BEVENV_MATRIX_PATH` entries, then `options`.
std::vector<std::filesystem::path> matrix_overlays(const MatrixOptions& options);
// Parses a `BEVENV_MATRIX_PATH` value; empty entries are skipped.
std::vector<std::filesystem::path> split_matrix_path(std::string_view value);

// Throws core::Error(ExitCode::bad_input) whose causes list every diagnostic.
matrix::Matrix load_matrix_or_throw(const MatrixOptions& options);

// The profile `name`, or core::Error(ExitCode::bad_input) naming the closest profile (a typo)
// or else listing them all; `given_as` says where the name came from (`--profile`).
const matrix::Profile& profile_or_throw(const matrix::Matrix& matrix, const std::string& name);

// The package of the matrix that `name`, which the matrix does not hold, most likely means: a
// name's first words (`opencv`), a typo (`scikitlearn`), or a name typed short (`nuscenes`);
// empty when none is near.
std::string package_meant(const matrix::Matrix& matrix, std::string_view name);

}  // namespace bevenv::app
