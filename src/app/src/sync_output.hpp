#pragma once
// Internal to `bevenv sync`: what one run did, and its human lines and JSON.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "bevenv/app/output.hpp"
#include "bevenv/app/sync.hpp"

namespace bevenv::app {

struct SyncReport {
  const SyncOptions* options = nullptr;
  std::filesystem::path interpreter;  // set when the venv had to be created
  bool created = false;
  SyncPlan plan;   // before
  SyncPlan after;  // the venv read again after installing: empty when it matches
  std::size_t removed = 0;
  std::size_t hashed = 0;    // pins installed with --require-hashes
  std::size_t unhashed = 0;  // URL pins without a recorded sha256
  std::size_t builds = 0;
  nlohmann::json doctor;  // doctor's JSON; null when it did not run
  std::string doctor_error;
};

// `--dry-run`: the plan, change by change. Exit 1 when the venv differs from the lock.
CommandOutput render_dry_run(const SyncReport& report);
// After a sync: what was done, what sync leaves to others, and the one-line verdict. Exit 1 when
// the venv still differs from the lock.
CommandOutput render_sync(const SyncReport& report);

}  // namespace bevenv::app
