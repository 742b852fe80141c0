#pragma once
// A re-lock changes only what it must: the pins of the lock being replaced become preferences
// (as uv and pip-tools keep locked versions), unless `--upgrade` lets every package move or
// `--upgrade-package NAME` lets one.
#include <string>
#include <vector>

#include "bevenv/app/lock.hpp"
#include "bevenv/lockfiles/model.hpp"
#include "bevenv/lockfiles/pins.hpp"
#include "lock_inputs.hpp"
#include "lock_translate.hpp"

namespace bevenv::app {

// The pins of `previous` as preferences, when `previous` is a lock of the same profile and
// target (none otherwise). Throws core::Error(bad_input) for an `--upgrade-package` name that
// `previous` does not pin.
std::vector<solver::Preference> previous_pin_preferences(const LockInputs& inputs,
                                                         const lockfiles::PinnedLock& previous,
                                                         const LockOptions& options);

// Puts `kept` at the front of the preferences (rules' preferences, later in the list, win over
// them).
void keep_previous_pins(Translation& translation, std::vector<solver::Preference> kept);

// `torch 1.10.1+cu113 -> 1.10.2+cu113`, `+ six 1.16.0`, `- tqdm 4.66.0`: the pins that differ.
std::vector<std::string> pin_changes(const lockfiles::PinnedLock& previous,
                                     const lockfiles::Lockfile& fresh);

}  // namespace bevenv::app
