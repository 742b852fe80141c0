// bevenv doctor --record: the verdicts on the real venvs become `[[observed]]` records that
// `bevenv matrix check` accepts, that load by themselves from $XDG_DATA_HOME/bevenv/observed,
// and that a later `bevenv lock` uses: observed failures avoided, observed successes preferred.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "bevenv/app/lock.hpp"
#include "bevenv/app/matrix_commands.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "doctor_support.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;

std::string python_minor(const std::string& venv) {
  return test::venv_python_output(venv, "import sys; print(\"%d.%d\" % sys.version_info[:2])");
}

// Runs the whole doctor (every probe) on a venv and records into the default directory.
CommandOutput record_venv(const std::string& venv) {
  DoctorOptions options;
  options.probe = fs::path(BEVENV_PROBE_EXE);
  options.python = test::venv_python(venv);
  options.record = true;
  return doctor(options);
}

// `bevenv lock --profile smoke` for the venvs' Python; returns package -> version. yapf is held
// at the two releases the venvs carry (0.40.1 good, 0.40.2 bad): the generated layer holds newer
// ones, which fail F3 too, and the question here is what an observation changes.
std::map<std::string, std::string> lock_smoke(const std::string& python) {
  const auto dir = test::temp_dir("lock");
  LockOptions options;
  options.profile = "smoke";
  options.requirements = {"yapf<=0.40.2"};
  options.target.python = python;
  options.output = dir / "bevenv.lock";
  const CommandOutput out = lock(options);
  REQUIRE(out.exit_code == core::ExitCode::ok);
  std::map<std::string, std::string> pins;
  for (const auto& package : lockfiles::read_lockfile(dir / "bevenv.lock").packages) {
    pins[package.name] = package.version;
  }
  return pins;
}

TEST_CASE("doctor --record: observed failures are avoided by the next lock") {
  const std::string python = python_minor("bad-mmcv");
  const auto data = test::temp_dir("xdg");
  test::ScopedEnv xdg("XDG_DATA_HOME", data.string());
  test::ScopedEnv matrix_path("BEVENV_MATRIX_PATH", std::nullopt);

  // Without observations the smoke profile takes the newest yapf, the one that fails F3.
  const auto before = lock_smoke(python);
  REQUIRE(before.at("yapf") == "0.40.2");

  const CommandOutput out = record_venv("bad-mmcv");
  const fs::path file = out.json.at("recorded").at("file").get<std::string>();
  CHECK(file.parent_path() == data / "bevenv" / "observed");
  CHECK(file.filename() == out.json.at("fingerprint").get<std::string>() + ".toml");
  const std::string text = core::read_file(file);
  // The venv has no torch, so F2 cannot bite there: its observation is no verdict to store.
  CHECK_THAT(text, !Catch::Contains("check = \"F2\""));
  CHECK_THAT(text, Catch::Contains("package = \"yapf\"\nversion = \"0.40.2\"\n"
                                   "target = { python = \"" +
                                   python +
                                   "\" }\n"
                                   "outcome = \"fail\"\ncheck = \"F3\""));

  // `bevenv matrix check` accepts it, and every command loads it by itself.
  MatrixCheckOptions check;
  check.dirs = {file.parent_path()};
  CHECK(matrix_check(check).exit_code == core::ExitCode::ok);
  const auto matrix = load_matrix_or_throw({});
  CHECK(matrix.observed.size() == out.json["recorded"]["records"].get<std::size_t>());
  for (const auto& observed : matrix.observed)
    CHECK(observed.origin.layer == matrix::Layer::observed);

  const auto after = lock_smoke(python);
  CHECK(after.at("yapf") == "0.40.1");
  // Another Python is another target: the observations do not apply there.
  const std::string other = python == "3.10" ? "3.9" : "3.10";
  CHECK(lock_smoke(other).at("yapf") == "0.40.2");
}

TEST_CASE("doctor --record: observed successes are preferred; earlier failures are kept") {
  const std::string python = python_minor("good-mmcv");
  const auto data = test::temp_dir("xdg-good");
  test::ScopedEnv xdg("XDG_DATA_HOME", data.string());
  test::ScopedEnv matrix_path("BEVENV_MATRIX_PATH", std::nullopt);

  // Without observations the smoke profile does not take setuptools 58.0.4, and recording the
  // torch-less venv does not change that: F2 was not observed on a package it can bite.
  const std::string setuptools = lock_smoke(python).at("setuptools");
  REQUIRE(setuptools != "58.0.4");
  const CommandOutput good = record_venv("good-mmcv");
  CHECK(good.json.at("recorded").at("kept") == 0);
  const auto preferred = lock_smoke(python);
  CHECK(preferred.at("setuptools") == setuptools);
  CHECK(preferred.at("yapf") == "0.40.1");

  // A later run on the same host with the bad venv adds its failures beside the successes.
  const CommandOutput bad = record_venv("bad-mmcv");
  CHECK(bad.json.at("recorded").at("kept").get<int>() >= 1);
  const std::string text = core::read_file(bad.json.at("recorded").at("file").get<std::string>());
  CHECK_THAT(text, Catch::Contains("version = \"0.40.1\""));
  CHECK_THAT(text, Catch::Contains("version = \"0.40.2\""));
  CHECK_THAT(text, !Catch::Contains("version = \"59.6.0\""));
  const auto both = lock_smoke(python);
  CHECK(both.at("yapf") == "0.40.1");
}

TEST_CASE("doctor --record DIR writes there; a record names only matrix packages") {
  const auto dir = test::temp_dir("record-dir");
  DoctorOptions options;
  options.probe = fs::path(BEVENV_PROBE_EXE);
  options.python = test::venv_python("bad-mmcv");
  options.check = "F3";
  options.record = true;
  options.record_dir = dir / "nested";
  const CommandOutput out = doctor(options);
  CHECK(out.json.at("recorded").at("records") == 1);
  CHECK(fs::path(out.json["recorded"]["file"].get<std::string>()).parent_path() == dir / "nested");
}

}  // namespace
}  // namespace bevenv::app
