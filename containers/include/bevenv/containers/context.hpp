#pragma once
// The build context as a deterministic tar archive: sorted entries, one fixed mtime, owner 0:0,
// fixed modes, no access/change times; equal inputs give equal bytes.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace bevenv::containers {

struct ContextEntry {
  enum class Kind { file, directory, symlink };
  std::string path;  // relative, `/`-separated, e.g. `project/setup.py`
  Kind kind = Kind::file;
  bool executable = false;
  std::string content;           // used when `source` is empty
  std::filesystem::path source;  // a file to read instead of `content`
  std::string link_target;       // for symlinks
};

// Adds `dir`'s tree under `prefix` (directories, regular files, symlinks as links; `.git` left
// out). Throws core::Error(bad_input) when `dir` is not a readable directory.
void add_directory_tree(std::vector<ContextEntry>& entries, const std::filesystem::path& dir,
                        const std::string& prefix);

// The tar bytes (pax restricted). Parent directories are added where missing. Throws
// core::Error(failure) when a source file cannot be read or changes size while it is read.
std::string write_context_tar(std::vector<ContextEntry> entries, std::int64_t mtime);

// Unpacks a tar made by write_context_tar into `dir` (the directory the builder gets).
void extract_context_tar(const std::string& tar_bytes, const std::filesystem::path& dir);

}  // namespace bevenv::containers
