#pragma once
// One member of a zip (a wheel's METADATA) read from a few byte ranges of the file instead of
// the whole file: the end-of-central-directory record (ZIP64 too), the central directory, then
// the member's local header and data. Pure functions over byte windows, so they can be tested
// and fuzzed without a network: the caller fetches whatever range `read_member` asks for next.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bevenv/core/expected.hpp"

namespace bevenv::index::zip {

// What the caller has: bytes of the file that were fetched, starting at `offset`.
struct Window {
  std::uint64_t offset = 0;
  std::string bytes;
};

// What a read asks for next: bytes [begin, end) of the file.
struct ByteRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

// Where the central directory lies.
struct Directory {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t entries = 0;
};

// One central-directory entry, with ZIP64 sizes and offset already applied.
struct Entry {
  std::string name;
  std::uint16_t flags = 0;
  std::uint16_t method = 0;  // 0 stored, 8 deflated
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_offset = 0;
};

// A member larger than this is refused: METADATA files are kilobytes, and a bound keeps a
// hostile archive from making us inflate gigabytes.
inline constexpr std::uint64_t kMaxMemberSize = 32ull << 20;

// The bytes a first read asks for: the file's last 16 KiB hold the end records, and for most
// wheels the central directory and the METADATA as well (wheels write `.dist-info` last). On
// every release of requests and its dependencies (301 wheels), 16 KiB reads 6 MiB in at most
// two rounds; 64 KiB reads 18 MiB in as many rounds, 8 KiB needs a third round.
inline constexpr std::uint64_t kTailSize = 16 * 1024;

// Either the next range to fetch or the answer.
template <typename T>
using Step = std::variant<T, ByteRange>;

// The central directory's place, from windows that include the file's end. Asks for a larger
// tail when the end record is not in the windows, and for the ZIP64 end record when the
// locator points outside them.
core::Expected<Step<Directory>, std::string> find_directory(const std::vector<Window>& windows,
                                                            std::uint64_t file_size);

// Every entry of a central directory (`bytes` is the whole directory).
core::Expected<std::vector<Entry>, std::string> parse_directory(std::string_view bytes,
                                                                std::uint64_t entries);

// The wheel's `NAME-VERSION.dist-info/METADATA` among the entries: the only top-level
// `.dist-info/METADATA`, or, when there are several, the one whose directory names `project`
// (normalized). nullptr when there is none.
const Entry* metadata_entry(const std::vector<Entry>& entries, std::string_view project);

// The member's compressed bytes, from a window holding its local header and data; asks for the
// range that holds them otherwise. `directory_offset` bounds the guess for the local header's
// extra field (a member's data ends before the central directory).
core::Expected<Step<std::string_view>, std::string> member_data(const std::vector<Window>& windows,
                                                                const Entry& entry,
                                                                std::uint64_t directory_offset);

// The member's uncompressed bytes (stored or deflated), checked against its size and CRC-32.
core::Expected<std::string, std::string> inflate_member(const Entry& entry,
                                                        std::string_view compressed);

// All of the above: the METADATA of the wheel of `project`, or the range to fetch next.
core::Expected<Step<std::string>, std::string> read_metadata(const std::vector<Window>& windows,
                                                             std::uint64_t file_size,
                                                             std::string_view project);

// The bytes [range) when one window holds all of them.
std::optional<std::string_view> slice(const std::vector<Window>& windows, ByteRange range);

}  // namespace bevenv::index::zip
