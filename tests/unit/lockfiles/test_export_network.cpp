// The exported requirements file installs with pip in hash-checking mode: a real wheel is
// fetched from PyPI at test time, locked with its sha256, exported, and `pip download` must
// accept it from a local find-links directory (and refuse it when the hash is wrong).
#include <catch2/catch.hpp>
#include <filesystem>

#include "bevenv/core/fs.hpp"
#include "bevenv/core/sha256.hpp"
#include "bevenv/core/subprocess.hpp"
#include "bevenv/lockfiles/export.hpp"

namespace fs = std::filesystem;
using namespace bevenv;
using namespace bevenv::lockfiles;

TEST_CASE("pip downloads the exported requirements with --require-hashes", "[network]") {
  const fs::path root = fs::temp_directory_path() / "bevenv-lockfiles-pip";
  fs::remove_all(root);
  const fs::path wheels = root / "wheels";
  fs::create_directories(wheels);
  core::ProcessOptions slow;
  slow.timeout = std::chrono::minutes(3);
  const core::ProcessResult fetched =
      core::run_process({"python3", "-m", "pip", "download", "--quiet", "--no-deps",
                         "--only-binary=:all:", "six==1.16.0", "-d", wheels.string()},
                        slow);
  INFO(fetched.err);
  REQUIRE(fetched.exit_code == 0);
  const fs::path wheel = wheels / "six-1.16.0-py2.py3-none-any.whl";
  REQUIRE(fs::exists(wheel));

  Lockfile lock;
  lock.generator = "bevenv 0.1.0";
  lock.matrix_version = "test";
  lock.input_hash = "sha256:" + core::sha256_hex("test");
  lock.target = {"3.11.2", "linux_x86_64", {}, {}, {}};
  Package six;
  six.name = "six";
  six.version = "1.16.0";
  six.source = {SourceKind::path, wheels.string()};
  six.artifacts = {{wheel.string(), wheel.filename().string(),
                    core::sha256_hex(core::read_file(wheel)), fs::file_size(wheel)}};
  six.why = {{ReasonKind::requested, "the test", {}, {}, {}}};
  lock.packages = {six};

  const auto download = [&](const Lockfile& l) {
    const fs::path requirements = root / "requirements.txt";
    core::write_file_atomic(requirements, export_requirements(l).text);
    fs::remove_all(root / "out");
    return core::run_process(
        {"python3", "-m", "pip", "download", "--no-index", "--require-hashes", "--no-deps", "-r",
         requirements.string(), "-d", (root / "out").string()},
        slow);
  };
  const core::ProcessResult good = download(lock);
  INFO(good.out << good.err);
  CHECK(good.exit_code == 0);
  CHECK(fs::exists(root / "out" / wheel.filename()));

  lock.packages[0].artifacts[0].sha256 = core::sha256_hex("not the wheel");
  const core::ProcessResult bad = download(lock);
  CHECK(bad.exit_code != 0);
  CHECK(bad.err.find("THESE PACKAGES DO NOT MATCH THE HASHES") != std::string::npos);

  // No recorded sha256: the pin moves to the second file, by the artifact's URL (here a path),
  // and pip takes it without hash checking.
  lock.packages[0].artifacts[0].sha256.reset();
  const RequirementsExport split = export_requirements(lock);
  CHECK(split.pins == 0);
  const fs::path unhashed = root / "requirements.unhashed.txt";
  core::write_file_atomic(unhashed, split.unhashed_text);
  fs::remove_all(root / "out");
  const core::ProcessResult plain =
      core::run_process({"python3", "-m", "pip", "download", "--no-index", "--no-deps", "-r",
                         unhashed.string(), "-d", (root / "out").string()},
                        slow);
  INFO(split.unhashed_text << plain.out << plain.err);
  CHECK(plain.exit_code == 0);
  CHECK(fs::exists(root / "out" / wheel.filename()));
}
