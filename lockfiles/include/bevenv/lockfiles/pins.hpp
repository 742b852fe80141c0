#pragma once
// What a lock pins, read quickly: a lock that a new one replaces is read for its profile, its
// target and its pins only (they become the new lock's preferences, and its changes are
// reported against them). A file that bevenv's writer made and nobody changed since (its
// `content_hash` holds over its bytes, under this schema) is scanned in the writer's own layout
// without a TOML parse (a 180-package lock: 0.5 ms instead of 10); any other file is read and
// validated whole (read_lockfile).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/lockfiles/model.hpp"

namespace bevenv::lockfiles {

struct Pin {
  std::string name;  // as the lock spells it
  std::string version;
  std::string variant;  // empty when the package has no build variants
  bool operator==(const Pin&) const = default;
};

struct PinnedLock {
  std::string profile;
  Target target;
  std::vector<Pin> pins;  // in the lock's order
  bool operator==(const PinnedLock&) const = default;

  const Pin* find(std::string_view name) const;  // by normalized name
};

PinnedLock pins_of(const Lockfile& lock);

// The pins of lockfile text written by write_lockfile and unchanged since; nullopt for any other
// text (edited, of another schema, or in a layout this scan does not know), which the caller then
// reads whole.
std::optional<PinnedLock> scan_written_pins(std::string_view text);

// scan_written_pins, else read_lockfile's result; throws core::Error as read_lockfile does.
PinnedLock read_pins(const std::filesystem::path& path);

}  // namespace bevenv::lockfiles
