// bevenv doctor against real virtual environments made from real PyPI wheels
// (tests/unit/probes/make_probe_venvs.sh): setuptools 58.0.4 / yapf 0.40.1 ("good") and
// setuptools 59.6.0 / yapf 0.40.2 ("bad"), the same with mmcv-full 1.4.0's metadata ("-mmcv": F3
// bites only beside mmcv 1.x), and real F2/F3 tracebacks from them.
#include <catch2/catch.hpp>
#include <sstream>

#include "doctor_support.hpp"

namespace bevenv::app {
namespace {

std::string python_version(const std::string& venv) {
  return test::venv_python_output(venv, "import platform; print(platform.python_version())");
}

CommandOutput run_check(const std::string& venv, const std::string& check,
                        const std::optional<std::filesystem::path>& lockfile = std::nullopt) {
  DoctorOptions options;
  options.probe = std::filesystem::path(BEVENV_PROBE_EXE);
  options.python = test::venv_python(venv);
  options.check = check;
  options.lockfile = lockfile;
  return doctor(options);
}

const nlohmann::json& only_check(const CommandOutput& out, const std::string& id) {
  const auto& checks = out.json.at("checks");
  REQUIRE(checks.size() == 1);
  REQUIRE(checks[0]["id"] == id);
  return checks[0];
}

TEST_CASE("doctor on real venvs: F2 setuptools and F3 yapf verdicts and fixes") {
  SECTION("yapf 0.40.1 passes") {
    const CommandOutput out = run_check("good-mmcv", "F3");
    CHECK(only_check(out, "F3")["severity"] == "ok");
    CHECK(out.exit_code == core::ExitCode::ok);
  }
  SECTION("setuptools 59.6.0 without torch is no F2 finding") {
    // The probe observes the missing `distutils.version` (tests/unit/probes), but F2 bites only
    // torch <1.11 (failures.toml `applies`): with no torch installed there is nothing to report,
    // and nothing for `--record` to store.
    for (const char* venv : {"good", "bad"}) {
      INFO(venv);
      const CommandOutput out = run_check(venv, "F2");
      CHECK(out.json.at("checks").empty());
      CHECK(out.exit_code == core::ExitCode::ok);
    }
  }
  SECTION("yapf 0.40.2 without mmcv is no F3 finding") {
    const CommandOutput out = run_check("bad", "F3");
    CHECK(out.json.at("checks").empty());
    CHECK(out.exit_code == core::ExitCode::ok);
  }
  SECTION("yapf 0.40.2 beside mmcv-full 1.4.0 fails F3") {
    const CommandOutput out = run_check("bad-mmcv", "F3");
    // The probe's verdict, and the matrix rule on the same pair (`known-bad`, tied to F3).
    const auto& checks = out.json.at("checks");
    REQUIRE(checks.size() == 2);
    CHECK(checks[1]["id"] == "known-bad");
    CHECK(checks[1]["failure"] == "F3");
    const auto& check = checks[0];
    REQUIRE(check["id"] == "F3");
    CHECK(check["severity"] == "problem");
    CHECK_THAT(check["title"].get<std::string>(), Catch::Contains("yapf 0.40.2"));
    CHECK_THAT(check["fix"].get<std::string>(), Catch::Contains("yapf==0.40.1"));
    CHECK(out.exit_code == core::ExitCode::problem_found);
  }
}

TEST_CASE("doctor on real venvs: drift against a lock that pins setuptools 58.0.4") {
  const auto dir = test::temp_dir("drift");
  const auto lock =
      test::small_lock(python_version("bad"), {{"setuptools", "58.0.4"}, {"yapf", "0.40.1"}});
  const auto path = test::write_lock(dir, lock);

  const CommandOutput bad = run_check("bad", "drift", path);
  const auto& checks = bad.json.at("checks");
  REQUIRE(checks.size() == 2);
  CHECK(bad.exit_code == core::ExitCode::problem_found);
  const std::string setuptools = checks[0]["title"];
  // No torch in the venv: F2 cannot bite, so the drift names no failure for setuptools.
  CHECK_THAT(setuptools, Catch::Contains("setuptools 59.6.0 installed") &&
                             Catch::Contains("58.0.4") && !Catch::Contains("F2"));
  CHECK_THAT(checks[0]["fix"].get<std::string>(), Catch::Contains("setuptools==58.0.4"));
  // No mmcv either: yapf 0.40.2 breaks nothing here, so its drift names no failure.
  CHECK_THAT(checks[1]["title"].get<std::string>(),
             Catch::Contains("yapf 0.40.2 installed") && !Catch::Contains("F3"));

  const CommandOutput good = run_check("good", "drift", path);
  CHECK(only_check(good, "drift")["severity"] == "ok");
  CHECK(good.exit_code == core::ExitCode::ok);

  // The interpreter's version against the lock's target.
  auto other = test::small_lock("3.8.18", {{"setuptools", "58.0.4"}});
  const auto other_path = test::write_lock(test::temp_dir("drift-py"), other);
  CHECK(only_check(run_check("good", "lock-python", other_path), "lock-python")["severity"] ==
        "problem");
}

TEST_CASE("doctor --log on real F2 and F3 tracebacks from the venvs") {
  const std::string f2 =
      "import setuptools\n"
      "try:\n    from setuptools import distutils\n"
      "except ImportError:\n    import distutils\n"
      "LooseVersion = distutils.version.LooseVersion\n";
  const std::string f3 =
      "from yapf.yapflib.yapf_api import FormatCode\nFormatCode('x=1\\n', verify=True)\n";
  struct Case {
    const char* id;
    const std::string* code;
    const char* last_line;
  };
  for (const Case& c : {Case{"F2", &f2, "AttributeError: module 'distutils'"},
                        Case{"F3", &f3, "TypeError: FormatCode() got an unexpected"}}) {
    INFO(c.id);
    const std::string python = test::shell_quote(test::venv_python("bad"));
    int exit_code = 0;
    const std::string traceback =
        test::run_shell(python + " -c " + test::shell_quote(*c.code), &exit_code);
    REQUIRE(exit_code != 0);
    REQUIRE_THAT(traceback, Catch::Contains(c.last_line));
    // The same code runs cleanly in the good venv: the log's failure is the version's doing.
    test::run_shell(
        test::shell_quote(test::venv_python("good")) + " -c " + test::shell_quote(*c.code),
        &exit_code);
    CHECK(exit_code == 0);

    std::size_t expected = 3;  // after the three lines of noise below
    {
      std::istringstream lines(traceback);
      std::size_t number = 0;
      for (std::string line; std::getline(lines, line);) {
        ++number;
        if (line.rfind(c.last_line, 0) == 0) expected = 3 + number;
      }
    }
    std::istringstream log("loading config\nbuilding model\nstarting epoch 1\n" + traceback);
    const auto matches = scan_log(log, &test::embedded_matrix());
    REQUIRE(matches.size() == 1);
    CHECK(matches[0].id == c.id);
    CHECK(matches[0].line == expected);
  }
}

}  // namespace
}  // namespace bevenv::app
