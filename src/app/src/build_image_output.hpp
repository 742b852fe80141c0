#pragma once
// Writing build-image's files: all of them or none (a temporary directory renamed into place).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace bevenv::app::detail {

struct OutputFile {
  std::string name;
  std::string content;
  bool executable = false;
};

// Replaces `dir` with a directory holding exactly `files`. Refuses (bad_input) a `dir` holding
// anything build-image did not write; throws core::Error(failure) when it cannot write.
void write_output_dir(const std::filesystem::path& dir, const std::vector<OutputFile>& files);

// A fresh directory under the system temp dir, removed with its contents on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace bevenv::app::detail
