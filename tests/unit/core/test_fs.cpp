#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "fresh_dir.hpp"
#include "thrown_error.hpp"

namespace fs = std::filesystem;
using bevenv::core::Error;
using bevenv::core::ExitCode;
using bevenv::testing::fresh_dir;

TEST_CASE("write_file_atomic replaces a file and leaves no temporary behind") {
  using bevenv::core::Durability;
  for (const Durability durability : {Durability::synced, Durability::unsynced}) {
    const fs::path dir = fresh_dir("atomic");
    const fs::path target = dir / "bevenv.lock";
    bevenv::core::write_file_atomic(target, "first\n", durability);
    bevenv::core::write_file_atomic(target, "second\n", durability);
    CHECK(bevenv::core::read_file(target) == "second\n");
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
    fs::remove_all(dir);
  }
}

TEST_CASE("write_file_if_changed leaves a file that holds the text as it is, else replaces it") {
  const fs::path dir = fresh_dir("if-changed");
  const fs::path target = dir / "bevenv.lock";
  const auto inode = [&] {
    struct stat st {};
    REQUIRE(::stat(target.c_str(), &st) == 0);
    return st.st_ino;
  };
  // No file yet: written.
  CHECK(bevenv::core::write_file_if_changed(target, "same\n"));
  const auto first = inode();
  // The same text: nothing written, so no rename gave it a new inode.
  CHECK_FALSE(bevenv::core::write_file_if_changed(target, "same\n"));
  CHECK(inode() == first);
  // A text that differs only past the first block, or only in length: written.
  const std::string long_text(200000, 'x');
  CHECK(bevenv::core::write_file_if_changed(target, long_text));
  std::string changed = long_text;
  changed.back() = 'y';
  CHECK(bevenv::core::write_file_if_changed(target, changed));
  CHECK(bevenv::core::read_file(target) == changed);
  CHECK_FALSE(bevenv::core::write_file_if_changed(target, changed));
  CHECK(bevenv::core::write_file_if_changed(target, changed + "z"));
  CHECK(bevenv::core::write_file_if_changed(target, changed));
  CHECK(bevenv::core::read_file(target) == changed);
  // A FIFO at the path is not opened to compare (that would wait for a writer): it is replaced.
  const fs::path fifo = dir / "fifo.lock";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK(bevenv::core::write_file_if_changed(fifo, "text\n"));
  CHECK(fs::is_regular_file(fifo));
  CHECK(bevenv::core::read_file(fifo) == "text\n");
  fs::remove_all(dir);
}

TEST_CASE("write_file_atomic into a missing directory is bad input that says how to fix it") {
  const fs::path missing = fresh_dir("missing") / "no such" / "dir";
  const fs::path target = missing / "out.lock";
  const auto e =
      bevenv::testing::thrown_error([&] { bevenv::core::write_file_atomic(target, "x"); });
  REQUIRE(e.has_value());
  CHECK(e->code() == ExitCode::bad_input);
  CHECK(std::string(e->what()).find(target.string()) != std::string::npos);
  // The hint's command, pasted into a shell, makes the directory despite the space.
  CHECK(e->hint() == "create it first (`mkdir -p '" + missing.string() + "'`) or write elsewhere");
  CHECK(!fs::exists(missing));
}

TEST_CASE("write_file_atomic over a directory is bad input and leaves it as it was") {
  const fs::path dir = fresh_dir("over-dir");
  fs::create_directories(dir / "out.lock");
  const auto e = bevenv::testing::thrown_error(
      [&] { bevenv::core::write_file_atomic(dir / "out.lock", "x"); });
  REQUIRE(e.has_value());
  CHECK(e->code() == ExitCode::bad_input);
  CHECK(std::string(e->what()) == "`" + (dir / "out.lock").string() + "` is a directory");
  CHECK(fs::is_directory(dir / "out.lock"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}

TEST_CASE("read_file of a missing file is bad input naming the path") {
  const auto e =
      bevenv::testing::thrown_error([&] { bevenv::core::read_file("/nonexistent/bevenv.toml"); });
  REQUIRE(e.has_value());
  CHECK(e->code() == ExitCode::bad_input);
  CHECK(std::string(e->what()) ==
        "cannot read `/nonexistent/bevenv.toml`: No such file or directory");
}

TEST_CASE("try_read_file reads whole files of any size, and says nothing for what it cannot") {
  const fs::path dir = fresh_dir("try-read");
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{65536},
                                 std::size_t{65537}, std::size_t{300001}}) {
    std::string text(size, 'a');
    for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + i % 26);
    bevenv::core::write_file_atomic(dir / "f", text);
    CHECK(bevenv::core::try_read_file(dir / "f") == text);
  }
  // procfs reports a size of 0 for files that have content.
  const auto status = bevenv::core::try_read_file("/proc/self/status");
  REQUIRE(status);
  CHECK(status->find("Name:") != std::string::npos);
  CHECK_FALSE(bevenv::core::try_read_file(dir / "missing"));
  CHECK_FALSE(bevenv::core::try_read_file(dir));  // a directory
  fs::remove_all(dir);
}
