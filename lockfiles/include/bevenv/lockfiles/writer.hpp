#pragma once
// The canonical TOML form of a lockfile: equal models (after canonicalize) give equal bytes.
#include <filesystem>
#include <string>

#include "bevenv/lockfiles/model.hpp"

namespace bevenv::lockfiles {

// The text of `lock` in canonical order, with a header comment and no timestamps.
// Throws core::Error (failure) when the model breaks validate(): writing a file that the reader
// would refuse is a bug in the caller, not something to save.
std::string to_toml(const Lockfile& lock);

// `sha256:<hex>` of to_toml(lock) without its `content_hash` line, which to_toml writes after
// `input_hash`: build-image and sync refuse a file whose content no longer hashes to it.
std::string content_hash(const Lockfile& lock);

// Writes to_toml(lock) to `path` atomically (a reader never sees a half-written file); a file
// that already holds that text is left as it is (a relock that changes nothing writes nothing).
void write_lockfile(const std::filesystem::path& path, const Lockfile& lock);

}  // namespace bevenv::lockfiles
