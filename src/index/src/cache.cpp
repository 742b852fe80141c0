#include "cache.hpp"

#include <charconv>
#include <chrono>
#include <sstream>

#include "bevenv/core/fs.hpp"
#include "bevenv/core/sha256.hpp"

namespace bevenv::index::cache {
namespace {

namespace fs = std::filesystem;

std::int64_t to_int64(std::string_view text) {
  std::int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

fs::path keyed(const fs::path& root, const char* area, const std::string& url) {
  return root / area / core::sha256_hex(url);
}

void write_atomic(const fs::path& path, std::string_view content) {
  std::error_code ignored;
  fs::create_directories(path.parent_path(), ignored);
  core::write_file_atomic(path, content);
}

}  // namespace

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<CachedPage> read_page(const fs::path& root, const std::string& url) {
  if (root.empty()) return std::nullopt;
  const auto text = core::try_read_file(keyed(root, "pages-v1", url));
  if (!text) return std::nullopt;
  CachedPage out;
  out.page.url = url;
  std::size_t pos = 0;
  bool url_matches = false;
  while (pos < text->size()) {
    const auto end = text->find('\n', pos);
    if (end == std::string::npos) return std::nullopt;
    const std::string line = text->substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) {
      if (!url_matches) return std::nullopt;
      out.page.body = text->substr(pos);
      out.page.from_cache = true;
      return out;
    }
    const auto space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "url") url_matches = value == url;
    if (key == "etag") out.page.etag = value;
    if (key == "last-modified") out.page.last_modified = value;
    if (key == "content-type") out.page.content_type = value;
    if (key == "max-age") out.page.max_age = to_int64(value);
    if (key == "fetched") out.fetched_at = to_int64(value);
    if (key == "sha256") out.page.body_sha256 = value;
  }
  return std::nullopt;  // no blank line: not a whole entry
}

void write_page(const fs::path& root, const Page& page, std::int64_t now) {
  if (root.empty()) return;
  std::string text = "url " + page.url + "\n";
  if (!page.etag.empty()) text += "etag " + page.etag + "\n";
  if (!page.last_modified.empty()) text += "last-modified " + page.last_modified + "\n";
  if (!page.content_type.empty()) text += "content-type " + page.content_type + "\n";
  text += "max-age " + std::to_string(page.max_age) + "\n";
  if (!page.body_sha256.empty()) text += "sha256 " + page.body_sha256 + "\n";
  text += "fetched " + std::to_string(now) + "\n\n";
  text += page.body;
  write_atomic(keyed(root, "pages-v1", page.url), text);
}

fs::path file_path(const fs::path& root, const std::string& sha256, const std::string& filename) {
  return root / "files-v1" / sha256 / filename;
}

std::optional<DownloadedFile> file_by_url(const fs::path& root, const std::string& url) {
  if (root.empty()) return std::nullopt;
  const auto text = core::try_read_file(keyed(root, "urls-v1", url));
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  DownloadedFile file;
  std::string filename;
  if (!(in >> file.sha256 >> file.size >> filename)) return std::nullopt;
  file.path = file_path(root, file.sha256, filename);
  std::error_code ec;
  if (!fs::is_regular_file(file.path, ec)) return std::nullopt;
  return file;
}

void remember_file_url(const fs::path& root, const std::string& url, const DownloadedFile& file) {
  if (root.empty()) return;
  write_atomic(keyed(root, "urls-v1", url), file.sha256 + " " + std::to_string(file.size) + " " +
                                                file.path.filename().string() + "\n");
}

std::optional<std::uint64_t> read_size(const fs::path& root, const std::string& url) {
  if (root.empty()) return std::nullopt;
  const auto text = core::try_read_file(keyed(root, "sizes-v1", url));
  if (!text || text->empty()) return std::nullopt;
  return static_cast<std::uint64_t>(to_int64(*text));
}

void write_size(const fs::path& root, const std::string& url, std::uint64_t size) {
  if (root.empty()) return;
  write_atomic(keyed(root, "sizes-v1", url), std::to_string(size));
}

namespace {

fs::path metadata_path(const fs::path& root, const std::string& sha256, const std::string& url) {
  return root / "metadata-v1" / (sha256.empty() ? "url-" + core::sha256_hex(url) : sha256);
}

}  // namespace

std::optional<std::string> read_metadata(const fs::path& root, const std::string& sha256,
                                         const std::string& url) {
  if (root.empty()) return std::nullopt;
  return core::try_read_file(metadata_path(root, sha256, url));
}

void write_metadata(const fs::path& root, const std::string& sha256, const std::string& url,
                    std::string_view text) {
  if (root.empty()) return;
  write_atomic(metadata_path(root, sha256, url), text);
}

fs::path temp_dir(const fs::path& root) { return root / "tmp"; }

}  // namespace bevenv::index::cache
