#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace bevenv::core {

// How a written file survives a power loss: `synced` before it replaces `path` (what a user
// keeps: a lockfile, an export); `unsynced` for a cache entry, which a power loss may lose or
// leave empty, and whose reader then reads it as absent (an fsync cost 0.25 ms a file here,
// a tenth of a cold lock of 180 packages).
enum class Durability { synced, unsynced };

// Writes `content` to a temporary file beside `path` and renames it over `path`, so readers
// never see a half-written file. Throws core::Error naming the path: bad_input when the path is a
// directory or its directory does not exist, failure when the system refuses the write.
void write_file_atomic(const std::filesystem::path& path, std::string_view content,
                       Durability durability = Durability::synced);
// As write_file_atomic, unless `path` is a regular file that already holds exactly `content`:
// then nothing is written (no fsync, and the file keeps its inode, mode and time, so that what
// watches it sees no change). True when it wrote.
bool write_file_if_changed(const std::filesystem::path& path, std::string_view content,
                           Durability durability = Durability::synced);
// Reads a whole file; throws core::Error (bad_input) naming the path when it cannot be read.
std::string read_file(const std::filesystem::path& path);
// The whole file, or nullopt when it is missing or unreadable (caches, where absence is normal).
std::optional<std::string> try_read_file(const std::filesystem::path& path);
// The file's sha256 as lowercase hex, read in blocks; nullopt when it cannot be read.
std::optional<std::string> try_file_sha256_hex(const std::filesystem::path& path);

}  // namespace bevenv::core
