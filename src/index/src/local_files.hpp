#pragma once
// What bevenv learned about wheels and sdists in local directories, kept in the download cache
// so a later lock does not open every archive again: one file per directory,
// `local-v2/<sha256 of the directory path>`, with each file's core metadata header block and
// sha256. An entry is used only while the file keeps the size and modification time (to the
// nanosecond) it had when it was read; any other change reads the file again.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/index/metadata.hpp"
#include "bevenv/index/project.hpp"

namespace bevenv::index::local {

struct FileStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

// The stamp of a regular file; nullopt when it cannot be stat'ed or is not a regular file.
std::optional<FileStamp> stamp_of(const std::filesystem::path& path);

class DirectoryFacts {
 public:
  // Loads what the cache holds for `directory` (nothing when `cache_root` is empty).
  DirectoryFacts(std::filesystem::path cache_root, std::filesystem::path directory);

  // The metadata header block / sha256 recorded for `filename`, when its stamp still matches.
  const std::string* metadata(const std::string& filename, const FileStamp& stamp) const;
  const std::string* sha256(const std::string& filename, const FileStamp& stamp) const;

  void set_metadata(const std::string& filename, const FileStamp& stamp, std::string text);
  void set_sha256(const std::string& filename, const FileStamp& stamp, std::string sha256);

  // Writes the directory's entry back (atomically) when something was added; a cache that
  // cannot be written only costs time later, so failures are ignored.
  void save();

 private:
  struct Entry {
    FileStamp stamp;
    std::optional<std::string> metadata;
    std::optional<std::string> sha256;
  };
  Entry& entry_for(const std::string& filename, const FileStamp& stamp);

  std::filesystem::path file_;  // empty: no cache
  std::map<std::string, Entry> entries_;
  bool changed_ = false;
};

// Local wheels and sdists of one lock: stamps taken when directories are listed, and each
// directory's cached facts, loaded on first use and saved by save().
class LocalFiles {
 public:
  explicit LocalFiles(std::filesystem::path cache_root);

  // The artifacts of a directory (`file://` URLs, sizes set), remembering each file's stamp.
  core::Expected<std::vector<Artifact>, std::string> list_directory(const std::string& dir);
  // Core metadata of a local file, from the cache while its stamp holds, else from the archive.
  core::Expected<CoreMetadata, std::string> metadata(const Artifact& artifact,
                                                     const std::string& path);
  // Reads the archives of those files whose metadata the cache lacks, several at once: a cold
  // directory costs disk latency per file, which parallel reads overlap. metadata() then
  // finds them recorded.
  void prefetch_metadata(const std::vector<std::pair<const Artifact*, std::string>>& files);
  // sha256 of a local file (cached the same way); nullopt when it cannot be read.
  std::optional<std::string> sha256(const std::string& path);
  void save();

 private:
  std::optional<FileStamp> stamp(const std::string& path);
  DirectoryFacts& facts(const std::string& path);

  std::filesystem::path cache_root_;
  std::unordered_map<std::string, FileStamp> stamps_;  // by path, from directory listings
  std::map<std::string, std::unique_ptr<DirectoryFacts>> facts_;  // by directory
};

// The header block of a METADATA/PKG-INFO text: everything before the first empty line (the
// description body follows it and resolution never needs it).
std::string header_block(const std::string& text);

}  // namespace bevenv::index::local
