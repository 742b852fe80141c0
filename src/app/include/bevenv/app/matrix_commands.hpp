#pragma once
// `bevenv matrix check | show | rules | profiles`: human lines and JSON, never printed here.
#include <filesystem>
#include <string>
#include <vector>

#include "bevenv/app/matrix_source.hpp"
#include "bevenv/app/output.hpp"

namespace bevenv::app {

struct MatrixCheckOptions {
  MatrixOptions matrix;
  // Directories to check on top of the embedded data (after the `matrix` overlays).
  std::vector<std::filesystem::path> dirs;
};

struct MatrixShowOptions {
  MatrixOptions matrix;
  std::string package;  // any spelling; empty: list every package
};

struct MatrixRulesOptions {
  MatrixOptions matrix;
  std::string failure;  // `F2`: only rules for this failure; empty: all
};

struct MatrixProfilesOptions {
  MatrixOptions matrix;
  std::string profile;  // empty: every profile, one line each
};

// Exit 0 with counts when valid; exit 2 with every diagnostic otherwise.
CommandOutput matrix_check(const MatrixCheckOptions& options);
// Versions x variants of one package with the rules that touch each; without a package, every
// package with its counts. Throws core::Error (bad_input) for an unknown package.
CommandOutput matrix_show(const MatrixShowOptions& options);
// The known-bad catalogue: id, kind, failure, when/then, symptom, fix, sources.
CommandOutput matrix_rules(const MatrixRulesOptions& options);
// The profiles, one line each; with a name: its pins, what a port changes, its caveats, the GPUs
// it cannot serve and why, and its sources. Throws core::Error (bad_input) for an unknown name.
CommandOutput matrix_profiles(const MatrixProfilesOptions& options);

}  // namespace bevenv::app
