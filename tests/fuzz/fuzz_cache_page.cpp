// Fuzzes the download cache's readers (index/cache.cpp) on files a crash, a full disk or another
// program may have left: the first byte picks the entry (a page, a file-by-URL record, a size),
// the rest is its content. A page that reads back is the one asked for and survives a write and
// a read unchanged; a file record names a path under `files-v2/` only; a size is never one that
// a negative number wrapped around to.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>

#include "bevenv/core/sha256.hpp"
#include "cache.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;
namespace cache = bevenv::index::cache;
namespace fs = std::filesystem;

namespace {

const std::string kUrl = "https://idx.example/simple/six/";

const fs::path& root() {
  static const fs::path dir = [] {
    const fs::path made = bevenv::fuzz::temp_directory("cache");
    // The file a record of sha256 `aaaa...` names, so that such records resolve to a path.
    const fs::path file = made / "files-v2" / "aa" / (std::string(64, 'a') + ".whl");
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "wheel";
    return made;
  }();
  return dir;
}

void put(const char* area, std::string_view text) {
  const fs::path path = root() / area / bevenv::core::sha256_hex(kUrl);
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
}

void check_page(std::string_view text) {
  put("pages-v1", text);
  const auto cached = cache::read_page(root(), kUrl);
  if (!cached) return;
  require(cached->page.url == kUrl && cached->page.from_cache, "a page of another URL");
  require(text.ends_with(cached->page.body), "a body that is not the entry's end");
  const fs::path again = root() / "again";
  cache::write_page(again, cached->page, cached->fetched_at);
  const auto reread = cache::read_page(again, kUrl);
  require(reread.has_value(), "a page written back does not read");
  const auto& a = cached->page;
  const auto& b = reread->page;
  require(a.body == b.body && a.etag == b.etag && a.last_modified == b.last_modified &&
              a.content_type == b.content_type && a.max_age == b.max_age &&
              a.body_sha256 == b.body_sha256 && cached->fetched_at == reread->fetched_at,
          "a page changes through a write and a read");
}

void check_file_record(std::string_view text) {
  put("urls-v1", text);
  // A record names a file only when that file exists (root() made one).
  const auto file = cache::file_by_url(root(), kUrl);
  if (!file) return;
  const std::string path = file->path.lexically_normal().string();
  const std::string files = (root() / "files-v2").string() + "/";
  require(path.starts_with(files), "a file record that points outside `files-v2/`");
}

void check_size(std::string_view text) {
  put("sizes-v1", text);
  const auto size = cache::read_size(root(), kUrl);
  if (!size) return;
  require(*size <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()),
          "a size that a negative number wrapped around to");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);  // NOLINT
  switch (data[0] % 3) {
    case 0:
      check_page(text);
      break;
    case 1:
      check_file_record(text);
      break;
    default:
      check_size(text);
      break;
  }
  return 0;
}
