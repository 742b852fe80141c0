// bevenv doctor running the real bevenv-probe on this machine, which has no NVIDIA driver.
#include <catch2/catch.hpp>
#include <fstream>

#include "doctor_probe.hpp"
#include "doctor_support.hpp"
#include "thrown_error.hpp"

namespace bevenv::app {
namespace {

TEST_CASE("doctor: no driver here gives a clean finding with a fix") {
  DoctorOptions options;
  options.probe = std::filesystem::path(BEVENV_PROBE_EXE);
  options.lockfile = std::nullopt;
  options.check = "driver";
  options.include_report = true;
  const CommandOutput out = doctor(options);
  // Only the probes the check needs ran.
  CHECK(out.json.at("probe").at("only") == nlohmann::json({"driver", "nvml"}));
  const auto& checks = out.json.at("checks");
  REQUIRE(checks.size() == 1);
  if (out.json.at("report").at("driver").at("status") == "ok") {
    WARN("this machine has a working NVIDIA driver: the no-driver path is not exercised");
    CHECK(checks[0]["severity"] == "ok");
    return;
  }
  CHECK(checks[0]["id"] == "driver");
  CHECK(checks[0]["severity"] == "problem");
  CHECK_THAT(checks[0]["title"].get<std::string>(), Catch::Contains("libcuda.so.1"));
  CHECK_THAT(checks[0]["fix"].get<std::string>(), Catch::Contains("--gpus all"));
  CHECK(out.exit_code == core::ExitCode::problem_found);
  bool fix_line = false;
  for (const auto& line : out.lines) fix_line = fix_line || line.text.rfind("fix: ", 0) == 0;
  CHECK(fix_line);
  CHECK(out.lines.back().text.rfind("1 problem, 0 warnings.", 0) == 0);
}

TEST_CASE("doctor: a check that needs only the host probe passes on its own") {
  DoctorOptions options;
  options.probe = std::filesystem::path(BEVENV_PROBE_EXE);
  options.check = "memlock";  // reported only for multi-node expectations: nothing to judge
  CommandOutput out = doctor(options);
  CHECK(out.json.at("probe").at("only") == nlohmann::json({"host"}));
  CHECK(out.exit_code == core::ExitCode::ok);
  options.check = "shm";
  out = doctor(options);
  REQUIRE(out.json.at("checks").size() == 1);
  CHECK(out.json["checks"][0]["id"] == "shm");
}

TEST_CASE("doctor: --cuda-version-override reaches the probe") {
  DoctorOptions options;
  options.probe = std::filesystem::path(BEVENV_PROBE_EXE);
  options.check = "driver";
  options.cuda_version_override = "11.8";
  options.include_report = true;
  const CommandOutput out = doctor(options);
  CHECK(out.json.at("report").at("options").at("cuda_version_override") == "11.8");
}

TEST_CASE("doctor: finding bevenv-probe") {
  const std::filesystem::path probe(BEVENV_PROBE_EXE);
  SECTION("an explicit path that is not there is bad input") {
    try {
      find_probe(std::filesystem::path("/nonexistent/bevenv-probe"), {});
      FAIL("no error");
    } catch (const core::Error& error) {
      CHECK(error.code() == core::ExitCode::bad_input);
    }
  }
  SECTION("BEVENV_PROBE") {
    test::ScopedEnv env("BEVENV_PROBE", probe.string());
    CHECK(find_probe(std::nullopt, "/nonexistent/bevenv") == probe);
  }
  SECTION("the build tree: <build>/src/cli/bevenv finds <build>/probes/bevenv-probe") {
    test::ScopedEnv env("BEVENV_PROBE", std::nullopt);
    const auto build = probe.parent_path().parent_path();
    CHECK(find_probe(std::nullopt, build / "src" / "cli" / "bevenv") ==
          (build / "probes" / "bevenv-probe"));
  }
  SECTION("beside the running bevenv") {
    test::ScopedEnv env("BEVENV_PROBE", std::nullopt);
    CHECK(find_probe(std::nullopt, probe.parent_path() / "bevenv") == probe);
  }
  SECTION("nowhere: an error that says what to do") {
    test::ScopedEnv env("BEVENV_PROBE", std::nullopt);
    test::ScopedEnv path("PATH", "/nonexistent");
    try {
      find_probe(std::nullopt, "/nonexistent/dir/bevenv");
      FAIL("no error");
    } catch (const core::Error& error) {
      CHECK(error.code() == core::ExitCode::failure);
      CHECK_THAT(std::string(error.what()), Catch::Contains("bevenv-probe"));
      CHECK_THAT(error.hint(), Catch::Contains("--probe PATH"));
    }
  }
}

TEST_CASE("doctor: `--python` that names neither an interpreter nor an environment is bad input") {
  const auto dir = test::temp_dir("python-flag");
  std::filesystem::create_directories(dir / "venv" / "bin");
  std::ofstream(dir / "venv" / "bin" / "python") << "#!/bin/sh\n";
  std::filesystem::permissions(dir / "venv" / "bin" / "python", std::filesystem::perms::owner_all);
  // An interpreter, an environment, and a bare name (looked up on PATH by the probe) pass.
  CHECK(checked_python((dir / "venv" / "bin" / "python").string()) ==
        (dir / "venv" / "bin" / "python").string());
  CHECK(checked_python((dir / "venv").string()) == (dir / "venv").string());
  CHECK(checked_python("python3") == "python3");
  for (const auto& wrong : {dir / "nonexistent", dir}) {
    const auto error = bevenv::testing::thrown_error([&] { checked_python(wrong.string()); });
    REQUIRE(error.has_value());
    CHECK(error->code() == core::ExitCode::bad_input);
    CHECK_THAT(std::string(error->what()), Catch::Contains(wrong.string()));
  }
  // Through the command: the probe is never run for a flag that points nowhere.
  DoctorOptions options;
  options.probe = std::filesystem::path(BEVENV_PROBE_EXE);
  options.python = (dir / "nonexistent").string();
  CHECK_THROWS_AS(doctor(options), core::Error);
}

TEST_CASE("doctor: a saved report that is not JSON is bad input") {
  const auto dir = test::temp_dir("badreport");
  std::ofstream(dir / "report.json") << "not json";
  DoctorOptions options;
  options.report = dir / "report.json";
  try {
    doctor(options);
    FAIL("no error");
  } catch (const core::Error& error) {
    CHECK(error.code() == core::ExitCode::bad_input);
  }
}

}  // namespace
}  // namespace bevenv::app
