#pragma once
// `bevenv lock`: resolve a profile and extra requirements for a target into bevenv.lock.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/matrix_source.hpp"
#include "bevenv/app/output.hpp"
#include "bevenv/app/target.hpp"

namespace bevenv::app {

struct LockOptions {
  MatrixOptions matrix;
  std::optional<std::string> profile;
  std::vector<std::string> requirements;                   // --require (PEP 508)
  std::optional<std::filesystem::path> requirements_file;  // -r FILE
  TargetOverrides target;                                  // flags win over bevenv.toml
  std::optional<std::filesystem::path> project_file;       // --project; default ./bevenv.toml
  std::optional<std::filesystem::path> output;             // -o; default bevenv.lock
  bool check = false;  // compare with the file on disk instead of writing it
  // A re-lock keeps the pins of the lock it replaces (same profile and target) unless `upgrade`
  // lets every package move, or `upgrade_packages` names those that may.
  bool upgrade = false;                       // --upgrade, -U
  std::vector<std::string> upgrade_packages;  // --upgrade-package, -P (repeatable)
  // Package indexes (src/app/src/lock_index.cpp): read only when one of these sources is given.
  std::optional<std::string> index_url;       // --index-url
  std::vector<std::string> extra_index_urls;  // --extra-index-url (repeatable)
  std::vector<std::string> find_links;        // --find-links URL|DIR (repeatable)
  bool offline = false;                       // --offline: the download cache only
  bool no_index = false;                      // --no-index: find-links only
  bool index_progress = true;                 // a progress bar on stderr when it is a terminal
  // --read-all-metadata: every candidate's metadata before the first solve, instead of what
  // solves choose (the same lock, read slowly: for comparisons)
  bool read_all_metadata = false;
  // The target an earlier lock recorded (lock_recorded.hpp): over `bevenv.toml`, under the
  // environment and flags; each value keeps its origin.
  TargetOverrides recorded_target;
};

CommandOutput lock(const LockOptions& options);

}  // namespace bevenv::app
