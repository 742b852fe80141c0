#include <catch2/catch.hpp>
#include <filesystem>

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
