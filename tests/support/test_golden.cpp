// The golden mechanism itself: the diff a reader sees, a missing file, and the update mode.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "golden.hpp"

namespace fs = std::filesystem;
using bevenv::golden::mismatch;
using bevenv::golden::unified_diff;

namespace {

struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("bevenv-golden-" + std::to_string(::getpid()));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() { fs::remove_all(path); }
};

std::string numbered(int from, int to) {
  std::string text;
  for (int i = from; i <= to; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

}  // namespace

TEST_CASE("equal texts have no diff") { CHECK(unified_diff("a\nb\n", "a\nb\n").empty()); }

TEST_CASE("a changed line shows with its context and where it is") {
  std::string changed = numbered(1, 20);
  changed.replace(changed.find("line 10\n"), 8, "line ten\n");
  CHECK(unified_diff(numbered(1, 20), changed) ==
        "--- golden\n+++ actual\n"
        "@@ golden line 7, actual line 7 @@\n"
        " line 7\n line 8\n line 9\n-line 10\n+line ten\n line 11\n line 12\n line 13\n");
}

TEST_CASE("separate changes make separate hunks; added and removed lines are marked") {
  const std::string expected = numbered(1, 30);
  std::string actual = "line 0\n" + expected;
  actual.erase(actual.find("line 25\n"), 8);
  const std::string diff = unified_diff(expected, actual);
  CHECK(diff.find("@@ golden line 1, actual line 1 @@\n+line 0\n line 1\n") != std::string::npos);
  CHECK(diff.find("-line 25\n") != std::string::npos);
  CHECK(diff.find("line 12") == std::string::npos);  // far from both changes
}

TEST_CASE("a missing final newline is shown, not hidden") {
  CHECK(unified_diff("a\n", "a").find("(no newline at end)") != std::string::npos);
}

TEST_CASE("long diffs are cut") {
  const std::string diff = unified_diff(numbered(1, 200), numbered(1000, 1200), 3, 10);
  CHECK(diff.find("diff cut after 10 lines") != std::string::npos);
}

TEST_CASE("a mismatch names the file and how to refresh it; an update rewrites it") {
  ScratchDir dir;
  const fs::path golden = dir.path / "case.txt";
  CHECK(mismatch(golden, "x\n").find("no golden file") != std::string::npos);
  std::ofstream(golden) << "old\n";
  const std::string report = mismatch(golden, "new\n");
  CHECK(report.find(golden.string() + " differs") != std::string::npos);
  CHECK(report.find("BEVENV_UPDATE_GOLDEN=1") != std::string::npos);
  CHECK(report.find("-old\n+new\n") != std::string::npos);

  ::setenv("BEVENV_UPDATE_GOLDEN", "1", 1);
  CHECK(mismatch(golden, "new\n").empty());
  ::unsetenv("BEVENV_UPDATE_GOLDEN");
  CHECK(mismatch(golden, "new\n").empty());
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}
