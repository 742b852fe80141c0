#include "cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <random>
#include <sstream>

#include "bevenv/core/fs.hpp"
#include "bevenv/core/outside_text.hpp"
#include "bevenv/core/sha256.hpp"
#include "metadata_form.hpp"

namespace bevenv::index::cache {
namespace {

namespace fs = std::filesystem;

std::int64_t to_int64(std::string_view text) {
  std::int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// A size written by write_size: decimal digits only. Anything else (a sign, a stray byte, a value
// past 2^63) is an entry another program or a crash left, and reads as absent.
std::optional<std::uint64_t> to_size(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool whole = error == std::errc() && end == text.data() + text.size();
  if (!whole || value > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return value;
}

fs::path keyed(const fs::path& root, std::string_view area, const std::string& url) {
  return root / area / core::sha256_hex(url);
}

std::string_view page_area(const std::string& form) {
  return form.empty() ? std::string_view("pages-v1") : std::string_view(form);
}

void write_atomic(const fs::path& path, std::string_view content) {
  std::error_code ignored;
  fs::create_directories(path.parent_path(), ignored);
  core::write_file_atomic(path, content, core::Durability::unsynced);
}

}  // namespace

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<CachedPage> read_page(const fs::path& root, const std::string& url,
                                    const std::string& form) {
  if (root.empty()) return std::nullopt;
  const auto text = core::try_read_file(keyed(root, page_area(form), url));
  if (!text) return std::nullopt;
  CachedPage out;
  out.page.url = url;
  out.page.form = form;
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
  write_atomic(keyed(root, page_area(page.form), page.url), text);
}

void remove_page(const fs::path& root, const std::string& url, const std::string& form) {
  if (root.empty()) return;
  std::error_code ignored;
  fs::remove(keyed(root, page_area(form), url), ignored);
}

fs::path file_path(const fs::path& root, const std::string& sha256, const std::string& filename) {
  // Only the content hash and a fixed extension name the file: a served name never becomes a
  // path. A digest that is not 64 hex digits is hashed again, so it cannot hold `/` either.
  const std::string key =
      core::is_sha256_hex(sha256) ? sha256 : core::sha256_hex("not-hex:" + sha256);
  std::string extension;
  for (const char* ext : {".whl", ".tar.gz", ".tgz", ".zip", ".tar.bz2"}) {
    if (filename.ends_with(ext)) extension = ext;
  }
  return root / "files-v2" / key.substr(0, 2) / (key + extension);
}

std::optional<DownloadedFile> file_by_url(const fs::path& root, const std::string& url) {
  if (root.empty()) return std::nullopt;
  const auto text = core::try_read_file(keyed(root, "urls-v1", url));
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  DownloadedFile file;
  std::string filename;
  std::string size;
  if (!(in >> file.sha256 >> size >> filename)) return std::nullopt;
  const auto parsed = to_size(size);
  if (!parsed) return std::nullopt;
  file.size = *parsed;
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
  if (!text) return std::nullopt;
  return to_size(*text);
}

void write_size(const fs::path& root, const std::string& url, std::uint64_t size) {
  if (root.empty()) return;
  write_atomic(keyed(root, "sizes-v1", url), std::to_string(size));
}

namespace {

fs::path metadata_path(const fs::path& root, const std::string& sha256, const std::string& url) {
  return root / metadata_form::kArchives /
         (sha256.empty() ? "url-" + core::sha256_hex(url) : sha256);
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

std::FILE* open_part(const fs::path& root, const std::string& stem, fs::path& path) {
  const fs::path dir = temp_dir(root);
  std::error_code ignored;
  fs::create_directories(dir, ignored);
  // The random part keeps names apart across PID namespaces (containers sharing a cache).
  static std::mt19937_64 random{std::random_device{}()};
  const std::string name = stem + "-" + std::to_string(random() % 1000000007);
  const fs::path fresh = dir / ("." + name + ".new");
  path = dir / (name + ".part");
  const int fd = ::open(fresh.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return nullptr;
  std::FILE* file = nullptr;
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::rename(fresh.c_str(), path.c_str()) == 0) {
    file = ::fdopen(fd, "wb");
  }
  if (file == nullptr) {
    ::unlink(fresh.c_str());
    ::unlink(path.c_str());
    ::close(fd);
  }
  return file;
}

namespace {

// Removes `path` when no process holds a lock on it. The lock is taken on the file, then the
// name is checked to still be that file: it may have been renamed into the cache meanwhile.
void remove_if_unlocked(const fs::path& path) {
  // O_NONBLOCK: whatever sits in tmp/ (a FIFO, say) must not hang the sweep.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  struct stat held {};
  struct stat named {};
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::fstat(fd, &held) == 0 &&
      ::lstat(path.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
      held.st_dev == named.st_dev) {
    ::unlink(path.c_str());
  }
  ::close(fd);
}

bool older_than(const fs::path& path, std::chrono::minutes age) {
  std::error_code ec;
  const auto written = fs::last_write_time(path, ec);
  return !ec && fs::file_time_type::clock::now() - written > age;
}

}  // namespace

void remove_stale_parts(const fs::path& root) {
  if (root.empty()) return;
  std::error_code ec;
  for (fs::directory_iterator it(temp_dir(root), ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path path = it->path();
    const std::string name = path.filename().string();
    if (name.ends_with(".part")) {
      remove_if_unlocked(path);
    } else if (name.starts_with(".") && name.ends_with(".new") &&
               older_than(path, std::chrono::minutes(10))) {
      fs::remove(path, ec);
      ec.clear();
    }
  }
}

}  // namespace bevenv::index::cache
