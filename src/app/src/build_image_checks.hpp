#pragma once
// The checks `build-image` makes on a lockfile before it renders anything.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "bevenv/app/build_image.hpp"
#include "bevenv/lockfiles/model.hpp"

namespace bevenv::app::detail {

struct CheckedLock {
  lockfiles::Lockfile lock;
  std::string bytes;   // the file as read
  std::string digest;  // `sha256:<hex>` of bytes
};

// Reads, parses and validates the lockfile and checks it is byte-for-byte its canonical form (a
// hand edit shows up as a difference). Throws core::Error(bad_input).
CheckedLock read_checked_lockfile(const std::filesystem::path& path);

struct InputCheck {
  bool checked = false;
  std::string note;                             // why it was not checked
  std::optional<std::int64_t> workers_per_gpu;  // from the matrix profile
};

// Re-gathers the inputs the lock was made from and compares their hash with the file's; throws
// core::Error(bad_input) when they differ. Inputs that cannot be gathered leave it unchecked.
InputCheck check_lock_inputs(const lockfiles::Lockfile& lock, const BuildImageOptions& options);

// SOURCE_DATE_EPOCH when set (throws bad_input when it is not a number), else 0.
std::int64_t source_date_epoch();

}  // namespace bevenv::app::detail
