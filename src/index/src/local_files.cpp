#include "local_files.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <exception>
#include <thread>

#include "bevenv/core/fs.hpp"
#include "bevenv/core/sha256.hpp"

namespace bevenv::index::local {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "bevenv local files v1\n";

// Reads `field\t` from `text` at `pos`; false at the end of the line or of the text.
bool next_field(std::string_view text, std::size_t& pos, std::string_view& field) {
  const auto end = text.find_first_of("\t\n", pos);
  if (end == std::string_view::npos) return false;
  field = text.substr(pos, end - pos);
  pos = end + 1;
  return true;
}

template <typename Number>
bool to_number(std::string_view text, Number& value) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

std::optional<FileStamp> stamp_of(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  FileStamp stamp;
  stamp.size = static_cast<std::uint64_t>(info.st_size);
  stamp.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 +
                   static_cast<std::int64_t>(info.st_mtim.tv_nsec);
  return stamp;
}

std::string header_block(const std::string& text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Only an empty line ends it: a line of blanks folds a License text's empty paragraph.
    if (line.empty()) return text.substr(0, pos);
    pos = end + 1;
  }
  return text;
}

// Entry format, after the magic line:
//   <filename>\t<size>\t<mtime_ns>\t<sha256 or ->\t<metadata length or ->\n<metadata>\n
// A truncated or garbled file is dropped whole: the cache is only ever a shortcut.
DirectoryFacts::DirectoryFacts(fs::path cache_root, fs::path directory) {
  if (cache_root.empty()) return;
  file_ = cache_root / "local-v2" / core::sha256_hex(directory.lexically_normal().string());
  const auto text = core::try_read_file(file_);
  if (!text || !std::string_view(*text).starts_with(kMagic)) return;
  const std::string_view all(*text);
  std::size_t pos = kMagic.size();
  std::map<std::string, Entry> loaded;
  while (pos < all.size()) {
    std::string_view name, size, mtime, sha, length;
    if (!next_field(all, pos, name) || !next_field(all, pos, size) ||
        !next_field(all, pos, mtime) || !next_field(all, pos, sha) ||
        !next_field(all, pos, length)) {
      return;
    }
    Entry entry;
    if (!to_number(size, entry.stamp.size) || !to_number(mtime, entry.stamp.mtime_ns)) return;
    if (sha != "-") entry.sha256 = std::string(sha);
    if (length != "-") {
      std::size_t n = 0;
      if (!to_number(length, n) || pos + n >= all.size() || all[pos + n] != '\n') return;
      entry.metadata = std::string(all.substr(pos, n));
      pos += n + 1;
    }
    loaded.emplace(std::string(name), std::move(entry));
  }
  entries_ = std::move(loaded);
}

const std::string* DirectoryFacts::metadata(const std::string& filename,
                                            const FileStamp& stamp) const {
  const auto it = entries_.find(filename);
  if (it == entries_.end() || !(it->second.stamp == stamp) || !it->second.metadata) return nullptr;
  return &*it->second.metadata;
}

const std::string* DirectoryFacts::sha256(const std::string& filename,
                                          const FileStamp& stamp) const {
  const auto it = entries_.find(filename);
  if (it == entries_.end() || !(it->second.stamp == stamp) || !it->second.sha256) return nullptr;
  return &*it->second.sha256;
}

DirectoryFacts::Entry& DirectoryFacts::entry_for(const std::string& filename,
                                                 const FileStamp& stamp) {
  Entry& entry = entries_[filename];
  if (!(entry.stamp == stamp)) entry = Entry{stamp, std::nullopt, std::nullopt};
  changed_ = true;
  return entry;
}

void DirectoryFacts::set_metadata(const std::string& filename, const FileStamp& stamp,
                                  std::string text) {
  entry_for(filename, stamp).metadata = std::move(text);
}

void DirectoryFacts::set_sha256(const std::string& filename, const FileStamp& stamp,
                                std::string sha256) {
  entry_for(filename, stamp).sha256 = std::move(sha256);
}

void DirectoryFacts::save() {
  if (file_.empty() || !changed_) return;
  std::string text(kMagic);
  for (const auto& [name, entry] : entries_) {
    // Names with a tab or newline cannot be stored in this format; they are read every time.
    if (name.find_first_of("\t\n") != std::string::npos) continue;
    text += name;
    text += '\t' + std::to_string(entry.stamp.size) + '\t' + std::to_string(entry.stamp.mtime_ns);
    text += '\t' + (entry.sha256 ? *entry.sha256 : std::string("-"));
    if (entry.metadata) {
      text += '\t' + std::to_string(entry.metadata->size()) + '\n' + *entry.metadata + '\n';
    } else {
      text += "\t-\n";
    }
  }
  try {
    std::error_code ignored;
    fs::create_directories(file_.parent_path(), ignored);
    core::write_file_atomic(file_, text);
    changed_ = false;
  } catch (const std::exception&) {
    // Unwritable cache: the next lock reads the archives again.
  }
}

LocalFiles::LocalFiles(fs::path cache_root) : cache_root_(std::move(cache_root)) {}

core::Expected<std::vector<Artifact>, std::string> LocalFiles::list_directory(
    const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return core::unexpected("cannot read the directory `" + dir + "`: " + ec.message());
  const fs::path base = fs::absolute(dir, ec).lexically_normal();
  std::vector<Artifact> artifacts;
  for (const auto& entry : it) {
    const std::string filename = entry.path().filename().string();
    const std::string path = (base / filename).string();
    auto artifact = artifact_from_filename(filename, "file://" + path);
    // The directory entry's own type, without a stat: a directory of 100k wheels is listed in
    // every lock, and a file's size and stamp are read only where its metadata or its hash is
    // (stamp(), IndexClient::complete()).
    if (!artifact || !entry.is_regular_file(ec)) continue;
    artifacts.push_back(std::move(*artifact));
  }
  return artifacts;
}

std::optional<FileStamp> LocalFiles::stamp(const std::string& path) {
  if (const auto it = stamps_.find(path); it != stamps_.end()) return it->second;
  auto file_stamp = stamp_of(path);
  if (file_stamp) stamps_[path] = *file_stamp;
  return file_stamp;
}

DirectoryFacts& LocalFiles::facts(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().string();
  auto& slot = facts_[dir];
  if (!slot) slot = std::make_unique<DirectoryFacts>(cache_root_, dir);
  return *slot;
}

core::Expected<CoreMetadata, std::string> LocalFiles::metadata(const Artifact& artifact,
                                                               const std::string& path) {
  const auto file_stamp = stamp(path);
  if (!file_stamp) return core::unexpected("cannot read `" + path + "`");
  DirectoryFacts& dir = facts(path);
  const std::string filename = fs::path(path).filename().string();
  std::string text;
  if (const std::string* cached = dir.metadata(filename, *file_stamp)) {
    text = *cached;
  } else {
    auto read = artifact.kind == ArtifactKind::wheel ? wheel_metadata_text(path)
                                                     : sdist_metadata_text(path);
    if (!read) return core::unexpected(read.error());
    text = header_block(*read);
    // Kept even when it does not parse: the error is the same next time, without the archive.
    dir.set_metadata(filename, *file_stamp, text);
  }
  auto parsed = parse_core_metadata(text);
  if (!parsed)
    return core::unexpected("the metadata of `" + artifact.filename + "`: " + parsed.error());
  return parsed;
}

void LocalFiles::prefetch_metadata(
    const std::vector<std::pair<const Artifact*, std::string>>& files) {
  struct Miss {
    const Artifact* artifact;
    const std::string* path;
    FileStamp stamp;
    std::optional<std::string> text;
  };
  std::vector<Miss> misses;
  for (const auto& [artifact, path] : files) {
    const auto file_stamp = stamp(path);
    if (!file_stamp) continue;
    const std::string filename = fs::path(path).filename().string();
    if (facts(path).metadata(filename, *file_stamp) == nullptr)
      misses.push_back({artifact, &path, *file_stamp, std::nullopt});
  }
  if (misses.empty()) return;
  constexpr std::size_t kReaders = 8;
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < misses.size(); i = next++) {
      Miss& miss = misses[i];
      auto read = miss.artifact->kind == ArtifactKind::wheel ? wheel_metadata_text(*miss.path)
                                                             : sdist_metadata_text(*miss.path);
      if (read) miss.text = header_block(*read);
    }
  };
  std::vector<std::thread> readers;
  const std::size_t count = std::min(kReaders, misses.size());
  for (std::size_t i = 1; i < count; ++i) readers.emplace_back(work);
  work();
  for (auto& reader : readers) reader.join();
  // Failures are left out: metadata() reads those files again and reports what went wrong.
  for (auto& miss : misses) {
    if (!miss.text) continue;
    facts(*miss.path)
        .set_metadata(fs::path(*miss.path).filename().string(), miss.stamp, std::move(*miss.text));
  }
}

std::optional<std::string> LocalFiles::sha256(const std::string& path) {
  const auto file_stamp = stamp(path);
  if (!file_stamp) return std::nullopt;
  DirectoryFacts& dir = facts(path);
  const std::string filename = fs::path(path).filename().string();
  if (const std::string* cached = dir.sha256(filename, *file_stamp)) return *cached;
  auto digest = core::try_file_sha256_hex(path);
  if (!digest) return std::nullopt;
  dir.set_sha256(filename, *file_stamp, *digest);
  return digest;
}

void LocalFiles::save() {
  for (auto& [dir, facts] : facts_) facts->save();
}

}  // namespace bevenv::index::local
