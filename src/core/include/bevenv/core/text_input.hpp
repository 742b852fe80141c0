#pragma once
// Reading text that users hand us (logs, reports, lockfiles, overlays) without hanging on a
// FIFO or a device, without reading without end, and without treating binary data as text.
#include <cstddef>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <string_view>

namespace bevenv::core {

// What bevenv reads of one input file at most (docs/doctor.md, docs/lockfile.md).
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;

// The whole of a regular file (symlinks followed). Directories, FIFOs, devices and sockets are
// refused without being read (a FIFO is opened non-blocking only to check it), and so is a
// file larger than `max_bytes`. Throws Error(bad_input) naming the path, with `hint`.
std::string read_regular_file(const std::filesystem::path& path, std::string_view hint,
                              std::size_t max_bytes = kMaxInputBytes);

// At most `max_bytes` of a stream (standard input); throws Error(bad_input) naming `name` when
// there is more.
std::string read_stream(std::istream& in, std::string_view name, std::string_view hint,
                        std::size_t max_bytes = kMaxInputBytes);

// The offset of the first sign that `text` is binary data rather than text: in the first sample
// (4 KiB) in which most bytes are control characters (NUL among them) or invalid UTF-8, its first
// NUL byte, else its start. nullopt for text (UTF-8, Latin-1 sprinkles, terminal colour codes and
// a stray NUL, as torch's DataLoader prints after its bus-error message, are fine).
std::optional<std::size_t> binary_offset(std::string_view text);

}  // namespace bevenv::core
