#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace bevenv::core {

// Writes `content` to a temporary file beside `path`, fsyncs and renames it over `path`, so
// readers never see a half-written file. Throws core::Error (exit code failure) naming the path.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);
// Reads a whole file; throws core::Error (bad_input) naming the path when it cannot be read.
std::string read_file(const std::filesystem::path& path);
// The whole file, or nullopt when it is missing or unreadable (caches, where absence is normal).
std::optional<std::string> try_read_file(const std::filesystem::path& path);
// The file's sha256 as lowercase hex, read in blocks; nullopt when it cannot be read.
std::optional<std::string> try_file_sha256_hex(const std::filesystem::path& path);

}  // namespace bevenv::core
