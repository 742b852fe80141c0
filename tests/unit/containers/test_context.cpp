// The build context tarball: identical bytes for identical inputs, checked with Python's tarfile.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bevenv/containers/context.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/sha256.hpp"
#include "bevenv/core/subprocess.hpp"
#include "thrown_error.hpp"

namespace fs = std::filesystem;
using namespace bevenv;
using namespace bevenv::containers;

namespace {

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A project tree; `variant` changes modes, mtimes and creation order but not contents.
void make_project(const fs::path& root, int variant) {
  const std::vector<std::string> names = {"setup.py", "mmdet3d/ops/voxel.cu", "tools/train.sh",
                                          "README.md"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& name = variant == 0 ? names[i] : names[names.size() - 1 - i];
    write(root / name, "content of " + name + "\n");
  }
  fs::permissions(root / "tools/train.sh", fs::perms::owner_exec, fs::perm_options::add);
  fs::create_symlink("README.md", root / "README");
  write(root / ".git/HEAD", "ref: refs/heads/" + std::to_string(variant) + "\n");
  const auto when = fs::file_time_type::clock::now() - std::chrono::hours(24 * (variant + 1));
  fs::last_write_time(root / "setup.py", when);
  if (variant == 1)
    fs::permissions(root / "README.md", fs::perms::group_write, fs::perm_options::add);
}

std::vector<ContextEntry> context_for(const fs::path& project) {
  std::vector<ContextEntry> entries;
  entries.push_back({"Dockerfile", ContextEntry::Kind::file, false, "FROM scratch\n", {}, {}});
  entries.push_back({"run.sh", ContextEntry::Kind::file, true, "#!/bin/sh\n", {}, {}});
  add_directory_tree(entries, project, "project");
  return entries;
}

core::ProcessResult python(const std::string& script, const fs::path& tar) {
  return core::run_process({"python3", "-c", script, tar.string()});
}

}  // namespace

TEST_CASE("the context tarball is byte-identical for identical inputs", "[containers][context]") {
  TempDir one("bevenv-ctx-a");
  TempDir two("bevenv-ctx-b");
  make_project(one.path / "src", 0);
  make_project(two.path / "src", 1);
  const std::string first = write_context_tar(context_for(one.path / "src"), 0);
  const std::string second = write_context_tar(context_for(two.path / "src"), 0);
  CHECK(core::sha256_hex(first) == core::sha256_hex(second));
  CHECK(first == write_context_tar(context_for(one.path / "src"), 0));
  CHECK(first != write_context_tar(context_for(one.path / "src"), 1700000000));
}

TEST_CASE("Python's tarfile sees sorted entries, owner 0:0, one mtime, fixed modes",
          "[containers][context]") {
  TempDir dir("bevenv-ctx-py");
  make_project(dir.path / "src", 1);
  const fs::path tar = dir.path / "context.tar";
  std::ofstream(tar, std::ios::binary) << write_context_tar(context_for(dir.path / "src"), 1234);
  const auto result = python(R"(
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    for m in t.getmembers():
        assert not m.pax_headers, (m.name, m.pax_headers)
        print(m.name, oct(m.mode), m.uid, m.gid, m.uname, m.gname, int(m.mtime),
              'dir' if m.isdir() else 'link:' + m.linkname if m.issym() else 'file')
)",
                             tar);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(result.out ==
        "Dockerfile 0o644 0 0 root root 1234 file\n"
        "project 0o755 0 0 root root 1234 dir\n"
        "project/README 0o777 0 0 root root 1234 link:README.md\n"
        "project/README.md 0o644 0 0 root root 1234 file\n"
        "project/mmdet3d 0o755 0 0 root root 1234 dir\n"
        "project/mmdet3d/ops 0o755 0 0 root root 1234 dir\n"
        "project/mmdet3d/ops/voxel.cu 0o644 0 0 root root 1234 file\n"
        "project/setup.py 0o644 0 0 root root 1234 file\n"
        "project/tools 0o755 0 0 root root 1234 dir\n"
        "project/tools/train.sh 0o755 0 0 root root 1234 file\n"
        "run.sh 0o755 0 0 root root 1234 file\n");
}

TEST_CASE("extracting the context gives the files back", "[containers][context]") {
  TempDir dir("bevenv-ctx-x");
  make_project(dir.path / "src", 0);
  extract_context_tar(write_context_tar(context_for(dir.path / "src"), 0), dir.path / "out");
  std::ifstream in(dir.path / "out/project/mmdet3d/ops/voxel.cu");
  std::string line;
  std::getline(in, line);
  CHECK(line == "content of mmdet3d/ops/voxel.cu");
  CHECK(fs::is_symlink(dir.path / "out/project/README"));
  CHECK((fs::status(dir.path / "out/run.sh").permissions() & fs::perms::owner_exec) !=
        fs::perms::none);
  CHECK_FALSE(fs::exists(dir.path / "out/project/.git"));
}

TEST_CASE("a missing project directory is a bad-input error", "[containers][context]") {
  std::vector<ContextEntry> entries;
  const auto e = bevenv::testing::thrown_error(
      [&] { add_directory_tree(entries, "/nonexistent/bevenv-project", "project"); });
  REQUIRE(e.has_value());
  CHECK(e->code() == core::ExitCode::bad_input);
}
