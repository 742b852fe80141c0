// Fuzzes wheel and sdist archive reading through libarchive (index/metadata.cpp, sdist_scan.cpp):
// the first byte picks a wheel (zip, `*.dist-info/METADATA`) or an sdist (tar, gzip, bzip2 or
// zip; `NAME-VERSION/PKG-INFO` and `*.egg-info/requires.txt`); the rest is the archive. A small
// limit makes the size check run: whatever the entry headers claim, no METADATA larger than the
// limit comes back, and what does come back is then parsed as bevenv would.
#include <archive.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "bevenv/index/metadata.hpp"
#include "fuzz_check.hpp"
#include "sdist_scan.hpp"

using bevenv::fuzz::require;
namespace index = bevenv::index;

namespace {

constexpr std::uint64_t kLimit = 64 * 1024;

bevenv::core::Expected<std::string, std::string> read_sdist(std::string_view bytes) {
  std::unique_ptr<archive, decltype(&archive_read_free)> reader(archive_read_new(),
                                                                &archive_read_free);
  archive_read_support_format_tar(reader.get());
  archive_read_support_format_zip(reader.get());
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_filter_bzip2(reader.get());
  if (archive_read_open_memory(reader.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    return bevenv::core::unexpected(std::string("not an archive"));
  }
  return index::scan_sdist(reader.get(), "the sdist", kLimit);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);  // NOLINT
  if ((data[0] & 1) == 0) {
    const auto text = index::wheel_metadata_text_from_memory(bytes, kLimit);
    if (!text) {
      require(!text.error().empty(), "a refusal that says nothing");
      return 0;
    }
    require(text->size() <= kLimit, "METADATA past the limit came back");
    (void)index::parse_core_metadata(*text);
  } else {
    const auto text = read_sdist(bytes);
    if (!text) {
      require(!text.error().empty(), "a refusal that says nothing");
      return 0;
    }
    (void)index::parse_core_metadata(*text);
  }
  return 0;
}
