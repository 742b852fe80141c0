// Local wheel directories: the metadata and sha256 read from a wheel are kept in the cache and
// used while the file keeps its size and mtime; any change reads the wheel again. Real wheels
// from PyPI; Python's zipfile and hashlib are the oracle.
#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bevenv/core/subprocess.hpp"
#include "bevenv/index/client.hpp"
#include "fresh_dir.hpp"
#include "python_oracle.hpp"

using namespace bevenv;
namespace fs = std::filesystem;

namespace {

const fs::path kWheels = BEVENV_INDEX_WHEELS;

struct Read {
  core::Expected<index::CoreMetadata, std::string> metadata;
  core::Expected<index::Artifact, std::string> artifact;
};

Read read_yapf(const fs::path& dir, const fs::path& cache) {
  index::IndexSettings settings;
  settings.no_index = true;
  settings.find_links = {dir.string()};
  settings.transport.cache_dir = cache;
  index::IndexClient client(settings);
  auto listed = client.list({"yapf"});
  REQUIRE(listed.at("yapf"));
  REQUIRE(listed.at("yapf")->artifacts.size() == 1);
  const index::Artifact& artifact = listed.at("yapf")->artifacts[0];
  auto metadata = client.metadata({artifact});
  auto completed = client.complete({artifact});
  return {std::move(metadata[0]), std::move(completed[0])};
}

std::vector<std::string> requires_of(const index::CoreMetadata& metadata) {
  std::vector<std::string> out;
  for (const auto& r : metadata.requires_dist) out.push_back(r.to_string());
  return out;
}

void set_mtime(const fs::path& path, const timespec& mtime) {
  const timespec times[2] = {mtime, mtime};
  REQUIRE(utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

timespec mtime_of(const fs::path& path) {
  struct stat info {};
  REQUIRE(stat(path.c_str(), &info) == 0);
  return info.st_mtim;
}

}  // namespace

TEST_CASE("local wheels: metadata and sha256 cached by size and mtime", "[index][local-cache]") {
  const fs::path work = bevenv::testing::fresh_dir("local-cache");
  const fs::path dir = work / "wheels";
  const fs::path cache = work / "cache";
  fs::create_directories(dir);
  const fs::path wheel = dir / "yapf-0.40.1-py3-none-any.whl";
  fs::copy_file(kWheels / "yapf-0.40.1-py3-none-any.whl", wheel);
  const auto expected = test::python_wheel_facts(wheel);
  const std::vector<std::string> expected_requires(expected.begin() + 1, expected.end());

  // Cold: read from the wheel, and recorded.
  const Read cold = read_yapf(dir, cache);
  REQUIRE(cold.metadata);
  REQUIRE(cold.artifact);
  CHECK(requires_of(*cold.metadata) == expected_requires);
  CHECK(cold.artifact->sha256 == expected[0]);
  REQUIRE(fs::is_directory(cache / "local-v2"));

  // Same size and mtime: the recorded facts are used, without opening the archive (its bytes
  // are now zeros, which no zip reader would accept).
  const timespec mtime = mtime_of(wheel);
  const auto size = fs::file_size(wheel);
  {
    std::ofstream zeros(wheel, std::ios::binary | std::ios::trunc);
    zeros << std::string(size, '\0');
  }
  set_mtime(wheel, mtime);
  const Read warm = read_yapf(dir, cache);
  REQUIRE(warm.metadata);
  REQUIRE(warm.artifact);
  CHECK(requires_of(*warm.metadata) == expected_requires);
  CHECK(warm.artifact->sha256 == expected[0]);

  // A new mtime: the wheel is read again, and its (broken) bytes are what counts.
  set_mtime(wheel, {mtime.tv_sec + 1, mtime.tv_nsec});
  const Read changed = read_yapf(dir, cache);
  CHECK_FALSE(changed.metadata);
  REQUIRE(changed.artifact);
  CHECK(changed.artifact->sha256 == test::python_sha256(wheel));
}
