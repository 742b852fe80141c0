#include "build_image_output.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "bevenv/core/error.hpp"

namespace bevenv::app::detail {
namespace {

namespace fs = std::filesystem;
using core::Error;
using core::ExitCode;

[[noreturn]] void cannot_write(const fs::path& path, const std::string& why) {
  throw Error(ExitCode::failure, "cannot write `" + path.string() + "`: " + why,
              "choose a writable directory with `--output DIR`");
}

void write_one(const fs::path& path, const OutputFile& file) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(file.content.data(), static_cast<std::streamsize>(file.content.size()));
  out.close();
  if (!out) cannot_write(path, "the write failed");
  std::error_code error;
  fs::permissions(path, file.executable ? fs::perms(0755) : fs::perms(0644),
                  fs::perm_options::replace, error);
  if (error) cannot_write(path, error.message());
}

}  // namespace

void write_output_dir(const fs::path& dir, const std::vector<OutputFile>& files) {
  std::error_code error;
  if (fs::exists(dir, error)) {
    if (!fs::is_directory(dir, error)) {
      throw Error(ExitCode::bad_input, "`" + dir.string() + "` exists and is not a directory",
                  "choose another `--output DIR`");
    }
    std::set<std::string> ours;
    for (const auto& f : files) ours.insert(f.name);
    for (const auto& entry : fs::directory_iterator(dir, error)) {
      if (!ours.contains(entry.path().filename().string())) {
        throw Error(ExitCode::bad_input,
                    "`" + dir.string() + "` holds `" + entry.path().filename().string() +
                        "`, which build-image did not write; it replaces the whole directory",
                    "choose an empty or new `--output DIR`");
      }
    }
  }
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  const std::string stem = "." + dir.filename().string() + "." + std::to_string(::getpid());
  const fs::path staging = parent / (stem + ".new");
  const fs::path old = parent / (stem + ".old");
  fs::remove_all(staging, error);
  fs::create_directories(staging, error);
  if (error) cannot_write(staging, error.message());
  try {
    for (const auto& f : files) write_one(staging / f.name, f);
    if (fs::exists(dir)) {
      fs::rename(dir, old, error);
      if (error) cannot_write(dir, error.message());
    }
    fs::rename(staging, dir, error);
    if (error) {
      if (fs::exists(old)) fs::rename(old, dir);
      cannot_write(dir, error.message());
    }
  } catch (...) {
    fs::remove_all(staging, error);
    throw;
  }
  fs::remove_all(old, error);
}

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + ".XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error(ExitCode::failure, "cannot create a temporary directory in `" +
                                       fs::temp_directory_path().string() + "`");
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

}  // namespace bevenv::app::detail
