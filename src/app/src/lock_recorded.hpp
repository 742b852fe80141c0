#pragma once
// The request a lock records in its `[inputs]` table, and `bevenv lock` with no flags making that
// request again: so `lock --check`, the stale-lock fix, build-image's input check and sync need no
// repeated flags (docs/lockfile-format.md).
#include <string>

#include "bevenv/app/lock.hpp"
#include "bevenv/app/target.hpp"
#include "bevenv/lockfiles/model.hpp"

namespace bevenv::app {

// What `options` asked, with the origin of each target value (`target` as resolved) and of the
// profile, when there is one.
lockfiles::Inputs inputs_to_record(const LockOptions& options, const TargetFacts& target,
                                   bool has_profile);

// True when the command line does not say what to lock: no profile or requirement (a target, an
// index, a project file, `-o` or `--check` change how, and keep the rest of the request).
bool names_nothing_to_lock(const LockOptions& options);

// `base` with the request `lock` recorded, where `base` does not say otherwise: its profile
// (unless `bevenv.toml` named it), `--require`, `-r` and project file, its indexes, and under the
// flags the target values that did not come from `bevenv.toml` (which is read again, so that an
// edit of it makes the lock stale).
LockOptions with_recorded_inputs(LockOptions base, const lockfiles::Lockfile& lock);

// One line for stderr: what was taken from the lock at `path`; empty when nothing was (all of it
// came from `bevenv.toml`).
std::string recorded_inputs_note(const lockfiles::Lockfile& lock, const std::string& path);

}  // namespace bevenv::app
