// lockfiles::read_pins: a lock the writer made is scanned for its pins without a TOML parse, and
// the scan says the same as a whole read; any text the writer did not make, byte for byte, is
// left to the whole read.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bevenv/lockfiles/pins.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "bevenv/lockfiles/writer.hpp"
#include "fresh_dir.hpp"
#include "sample_lock.hpp"

using namespace bevenv::lockfiles;
namespace fs = std::filesystem;

namespace {

PinnedLock whole_read(const std::string& text) {
  auto lock = parse_lockfile(text, "test.lock");
  REQUIRE(lock);
  return pins_of(*lock);
}

// The sample with many gpus (a multi-line array) and a package of a long name.
Lockfile with_long_lines() {
  Lockfile lock = testing::sample_lock();
  lock.target.gpus = {"sm_70",  "sm_75",  "sm_80",  "sm_86",  "sm_89",  "sm_90",
                      "sm_100", "sm_120", "sm_121", "sm_103", "sm_101", "sm_87"};
  return lock;
}

}  // namespace

TEST_CASE("a written lock is scanned, and says what a whole read says", "[lockfiles][pins]") {
  const std::string text = to_toml(testing::sample_lock());
  const auto scanned = scan_written_pins(text);
  REQUIRE(scanned);
  const PinnedLock whole = whole_read(text);
  CHECK(*scanned == whole);
  CHECK(scanned->profile == "bevfusion");
  CHECK(scanned->target.gpus == whole.target.gpus);
  REQUIRE_FALSE(scanned->pins.empty());
  const Pin* torch = scanned->find("Torch");
  REQUIRE(torch != nullptr);
  CHECK(torch->variant == "cu113");
}

TEST_CASE("the committed locks of the fuzz corpus scan as they read", "[lockfiles][pins]") {
  const fs::path corpus = fs::path(BEVENV_SOURCE_DIR) / "tests/fuzz/corpus/fuzz_lockfile";
  std::size_t scanned_files = 0;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    INFO(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto lock = parse_lockfile(text, "corpus");
    if (!lock) continue;
    // Written again by this writer, the file scans and agrees with the whole read.
    const std::string written = to_toml(*lock);
    const auto scanned = scan_written_pins(written);
    REQUIRE(scanned);
    CHECK(*scanned == whole_read(written));
    if (scan_written_pins(text)) ++scanned_files;
  }
  CHECK(scanned_files <= 5);  // older files may predate a field: they are read whole
}

TEST_CASE("text the writer did not make is left to the whole read", "[lockfiles][pins]") {
  const std::string text = to_toml(testing::sample_lock());
  SECTION("one byte changed anywhere") {
    for (std::size_t i = 0; i < text.size(); i += 7) {
      std::string changed = text;
      changed[i] = changed[i] == 'x' ? 'y' : 'x';
      CHECK_FALSE(scan_written_pins(changed));
    }
  }
  SECTION("reformatted but equal TOML") {
    std::string spaced = text;
    spaced.insert(spaced.find("[target]"), "\n");
    CHECK_FALSE(scan_written_pins(spaced));
    CHECK(whole_read(spaced) == whole_read(text));
  }
  SECTION("a long array written over several lines is not guessed at") {
    const std::string long_lines = to_toml(with_long_lines());
    REQUIRE(long_lines.find("gpus = [\n") != std::string::npos);
    CHECK_FALSE(scan_written_pins(long_lines));
  }
}

TEST_CASE("read_pins falls back to the whole read and its errors", "[lockfiles][pins]") {
  const fs::path dir = bevenv::testing::fresh_dir("read-pins");
  const fs::path path = dir / "bevenv.lock";
  const std::string text = to_toml(with_long_lines());
  std::ofstream(path, std::ios::binary) << text;
  CHECK(read_pins(path) == whole_read(text));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "schema_version = \"one\"\n";
  CHECK_THROWS(read_pins(path));
}
