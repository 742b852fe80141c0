// bevenv doctor's verdicts on recorded and edited probe reports: the driver floor for the
// locked CUDA (the matrix's toolkit table), missing architectures, GPU
// memory (F8), /dev/shm (F12), known-bad rules and the JSON shape. No GPU needed.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "bevenv/matrix/evaluate.hpp"
#include "bevenv/matrix/loader.hpp"
#include "doctor_internal.hpp"
#include "doctor_support.hpp"

namespace bevenv::app {
namespace {

using probes::Severity;
using test::with_id;

std::vector<probes::Finding> judge(const nlohmann::json& report, const lockfiles::Lockfile* lock,
                                   const matrix::Matrix& matrix,
                                   const matrix::Profile* profile = nullptr) {
  return judge_report(report, DoctorContext{lock, &matrix, profile});
}

nlohmann::json with_driver_cuda(nlohmann::json report, const std::string& cuda) {
  report["driver"]["cuda_version"] = cuda;
  report["driver"]["cuda_version_overridden"] = true;
  return report;
}

TEST_CASE("doctor: the lock's CUDA against a driver that is too old") {
  const auto& matrix = test::embedded_matrix();
  auto lock = test::small_lock("3.12.3", {});
  lock.environment.cuda = "12.1";
  const matrix::Toolkit* toolkit = matrix.find_toolkit(core::Version::parse("12.1").value());
  REQUIRE(toolkit != nullptr);
  // compat-facts §4, spelled as NVIDIA does (PEP 440 text would drop the zero: 530.30.2).
  const std::string floor = "530.30.02";

  SECTION("another major version: a problem with the matrix's driver floor") {
    const auto found =
        with_id(judge(with_driver_cuda(test::h200_report(), "11.8"), &lock, matrix), "driver-cuda");
    REQUIRE(found.size() == 1);
    CHECK(found[0].severity == Severity::problem);
    CHECK_THAT(found[0].title, Catch::Contains("CUDA 12.1") && Catch::Contains(floor) &&
                                   Catch::Contains("CUDA ≤ 11.8"));
    CHECK_THAT(found[0].fix, Catch::Contains("upgrade the NVIDIA driver to " + floor) &&
                                 Catch::Contains("--cuda-driver 11.8"));
    CHECK_THAT(found[0].detail, Catch::Contains(toolkit->origin.file.str()));
  }
  SECTION("same major version: minor-version compatibility, a warning") {
    const auto found =
        with_id(judge(with_driver_cuda(test::h200_report(), "12.0"), &lock, matrix), "driver-cuda");
    REQUIRE(found.size() == 1);
    CHECK(found[0].severity == Severity::warning);
    CHECK_THAT(found[0].fix, Catch::Contains(floor));
  }
  SECTION("the real driver (CUDA 13.0) runs it") {
    const auto found = with_id(judge(test::h200_report(), &lock, matrix), "driver-cuda");
    REQUIRE(found.size() == 1);
    CHECK(found[0].severity == Severity::ok);
    CHECK_THAT(found[0].title, Catch::Contains("580.159.04"));
  }
}

TEST_CASE("doctor: a lock for no GPU needs no driver") {
  const auto& matrix = test::embedded_matrix();
  nlohmann::json cpu_host = test::h200_report();
  cpu_host["driver"] = {{"status", "missing"}, {"error", "libcuda.so.1: cannot open"}};
  const auto cpu_lock = test::small_lock("3.12.3", {});  // no driver, GPU or CUDA in its target
  REQUIRE(cpu_lock.target.cuda_driver.empty());
  const auto without = with_id(judge(cpu_host, &cpu_lock, matrix), "driver");
  REQUIRE(without.size() == 1);
  CHECK(without[0].severity == Severity::ok);
  CHECK_THAT(without[0].title, Catch::Contains("none needed"));
  // A lock for a GPU, or no lock at all: the missing driver is a problem.
  auto gpu_lock = cpu_lock;
  gpu_lock.target.cuda_driver = "12.2";
  gpu_lock.target.gpus = {"sm_86"};
  CHECK(with_id(judge(cpu_host, &gpu_lock, matrix), "driver")[0].severity == Severity::problem);
  CHECK(with_id(judge(cpu_host, nullptr, matrix), "driver")[0].severity == Severity::problem);
}

TEST_CASE("doctor: an overlay's driver floor is the one doctor names") {
  // An overlay that corrects the floor of CUDA 12.1: the matrix's toolkit table is the only one.
  const matrix::Matrix with_floor =
      test::embedded_with_overlay("overlay/cuda.toml",
                                  "[[toolkit]]\nversion = \"12.1\"\nmin_driver = \"531.14\"\n"
                                  "sm = [\"sm_80\", \"sm_86\", \"sm_89\", \"sm_90\"]\nsources = "
                                  "[\"https://example.org/test\"]\n");
  auto lock = test::small_lock("3.12.3", {});
  lock.environment.cuda = "12.1";
  const auto found = with_id(
      judge(with_driver_cuda(test::h200_report(), "11.8"), &lock, with_floor), "driver-cuda");
  REQUIRE(found.size() == 1);
  CHECK_THAT(found[0].fix, Catch::Contains("531.14"));
  CHECK_THAT(found[0].detail, Catch::Contains("overlay/cuda.toml"));
  // The torch of the report against the same driver names the same floor.
  auto report = with_driver_cuda(test::h200_report(), "11.8");
  report["python"]["torch"]["cuda"] = "12.1";
  const auto torch = with_id(judge(report, nullptr, with_floor), "torch-cuda-driver");
  REQUIRE(torch.size() == 1);
  CHECK_THAT(torch[0].fix, Catch::Contains("531.14"));
}

TEST_CASE("doctor: a lock and a torch without sm_90 on the H200") {
  const auto& matrix = test::embedded_matrix();
  auto lock = test::small_lock("3.12.3", {});
  lock.environment.torch_cuda_arch_list = "7.0;7.5;8.0;8.6";
  lock.target.gpus = {"sm_86"};
  auto report = test::h200_report();

  SECTION("the compiled ops and the lock's targets lack sm_90") {
    const auto findings = judge(report, &lock, matrix);
    const auto ops = with_id(findings, "ops-arch");
    REQUIRE(ops.size() == 1);
    CHECK(ops[0].severity == Severity::problem);
    CHECK(ops[0].field_failure == "F10");
    CHECK_THAT(ops[0].title, Catch::Contains("sm_90"));
    CHECK_THAT(ops[0].fix, Catch::Contains("TORCH_CUDA_ARCH_LIST") && Catch::Contains("9.0"));
    const auto targets = with_id(findings, "lock-gpus");
    REQUIRE(targets.size() == 1);
    CHECK(targets[0].severity == Severity::warning);
    CHECK_THAT(targets[0].fix, Catch::Contains("--gpu sm_90"));
    // torch 2.11's own list has sm_90: that line stays green.
    const auto torch = with_id(findings, "gpu-arch");
    REQUIRE(torch.size() == 1);
    CHECK(torch[0].severity == Severity::ok);
  }
  SECTION("torch built without sm_90 and without PTX") {
    report["python"]["torch"]["arch_list"] = {"sm_75", "sm_80", "sm_86"};
    const auto torch = with_id(judge(report, &lock, matrix), "gpu-arch");
    REQUIRE(torch.size() == 1);
    CHECK(torch[0].severity == Severity::problem);
    CHECK_THAT(torch[0].fix, Catch::Contains("sm_90"));
  }
  SECTION("a lock that lists 9.0 is fine") {
    lock.environment.torch_cuda_arch_list = "8.6;9.0";
    lock.target.gpus = {"sm_90"};
    const auto findings = judge(report, &lock, matrix);
    CHECK(with_id(findings, "ops-arch").at(0).severity == Severity::ok);
    CHECK(with_id(findings, "lock-gpus").at(0).severity == Severity::ok);
  }
}

TEST_CASE("doctor: GPU memory against the profile's need (F8)") {
  const auto& matrix = test::embedded_matrix();
  const matrix::Profile* bevfusion = matrix.find_profile("bevfusion");
  REQUIRE(bevfusion != nullptr);
  REQUIRE(bevfusion->train_gpu_memory_gib.has_value());
  auto report = test::h200_report();
  CHECK(with_id(judge(report, nullptr, matrix, bevfusion), "gpu-memory").at(0).severity ==
        Severity::ok);
  for (auto& device : report["driver"]["devices"]) {
    device["memory_total_bytes"] = 24.0 * 1024 * 1024 * 1024;  // an RTX 3090
  }
  const auto found = with_id(judge(report, nullptr, matrix, bevfusion), "gpu-memory");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::warning);
  CHECK(found[0].field_failure == "F8");
  CHECK_THAT(found[0].fix, Catch::Contains("DDP"));
}

TEST_CASE("doctor: /dev/shm against the profile's DataLoader workers (F12)") {
  const auto& matrix = test::embedded_matrix();
  const matrix::Profile* bevfusion = matrix.find_profile("bevfusion");
  REQUIRE(bevfusion != nullptr);
  auto report = test::h200_report();
  report["host"]["shm"]["total_bytes"] = 64.0 * 1024 * 1024;  // Docker's default
  const auto found = with_id(judge(report, nullptr, matrix, bevfusion), "shm");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::problem);
  CHECK(found[0].field_failure == "F12");
  CHECK_THAT(found[0].fix, Catch::Contains("--shm-size"));
  // Two H200s: two DDP processes' workers share it.
  const auto workers = *bevfusion->dataloader_workers_per_gpu * 2;
  CHECK_THAT(found[0].title, Catch::Contains(std::to_string(workers) + " DataLoader workers"));
}

TEST_CASE("doctor: known-bad rules against the installed versions") {
  const auto& matrix = test::embedded_matrix();
  const matrix::Rule* rule = matrix.find_rule("setuptools-distutils-version");
  REQUIRE(rule != nullptr);
  auto report = test::h200_report();
  auto& dists = report["python"]["distributions"];
  dists = nlohmann::json::array({{{"name", "torch"}, {"version", "1.10.1+cu113"}},
                                 {{"name", "setuptools"}, {"version", "59.6.0"}}});
  // torch 1.10 on the H200 also breaks `torch1-no-sass-for-hopper`: pick the F2 one.
  auto found = with_id(judge(report, nullptr, matrix), "known-bad");
  std::erase_if(found, [](const probes::Finding& f) {
    return f.detail.find("setuptools-distutils-version") == std::string::npos;
  });
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::problem);
  CHECK(found[0].field_failure == "F2");
  CHECK(found[0].fix == rule->fix);
  CHECK_THAT(found[0].title, Catch::Contains("setuptools 59.6.0") &&
                                 Catch::Contains("setuptools-distutils-version"));

  dists[1]["version"] = "58.0.4";
  dists[0]["version"] = "2.1.0";
  found = with_id(judge(report, nullptr, matrix), "known-bad");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::ok);
}

// A Python probe section as bevenv-probe writes it: interpreter, torch, distributions, checks.
nlohmann::json python_report(const std::string& python, const std::string& torch,
                             const std::vector<std::pair<std::string, std::string>>& dists,
                             const nlohmann::json& checks) {
  nlohmann::json report = test::h200_report();
  auto& section = report["python"];
  section["interpreter"]["version"] = python;
  section["torch"] = torch.empty() ? nlohmann::json{{"status", "missing"}}
                                   : nlohmann::json{{"status", "ok"}, {"version", torch}};
  section["distributions"] = nlohmann::json::array();
  for (const auto& [name, version] : dists) {
    section["distributions"].push_back({{"name", name}, {"version", version}});
  }
  section["checks"] = checks;
  return report;
}

const nlohmann::json kF2Fails = nlohmann::json::array(
    {{{"id", "F2"},
      {"title", "distutils.version after importing setuptools"},
      {"status", "problem"},
      {"evidence", "AttributeError: module 'distutils' has no attribute 'version'"}}});

TEST_CASE("doctor: the Python checks in the catalogue's words, where the failure can bite") {
  const auto& matrix = test::embedded_matrix();
  SECTION("torch 1.10 on Python 3.8: F2 is a problem, with the setuptools downgrade") {
    const auto report = python_report(
        "3.8.18", "1.10.1+cu113", {{"torch", "1.10.1+cu113"}, {"setuptools", "59.6.0"}}, kF2Fails);
    const auto found = with_id(judge(report, nullptr, matrix), "F2");
    REQUIRE(found.size() == 1);
    CHECK(found[0].severity == Severity::problem);
    CHECK(found[0].field_failure == "F2");
    CHECK_THAT(found[0].title, Catch::StartsWith("setuptools 59.6.0 no longer imports"));
    CHECK_THAT(found[0].fix, Catch::Contains("setuptools<59.6"));
    CHECK_THAT(found[0].detail, Catch::Contains("no attribute 'version'"));
  }
  SECTION("the H200's Python 3.12 and torch 2.11: no F2 finding at all") {
    const auto report = test::h200_report();  // the probe saw F2 fail there
    REQUIRE(report["python"]["checks"][0]["status"] == "problem");
    const auto findings = judge(report, nullptr, matrix);
    CHECK(with_id(findings, "F2").empty());
    for (const auto& finding : findings) {
      INFO(finding.check << ": " << finding.title);
      CHECK(finding.fix.find("setuptools<59.6") == std::string::npos);
    }
    // Neither mmcv distribution is installed: the duplicate check speaks of nothing there.
    CHECK(with_id(findings, "mmcv-duplicate").empty());
  }
  SECTION("no torch installed: no F2 finding") {
    const auto report = python_report("3.8.18", "", {{"setuptools", "59.6.0"}}, kF2Fails);
    CHECK(with_id(judge(report, nullptr, matrix), "F2").empty());
  }
  SECTION("torch 1.13 on Python 3.10: torch no longer uses distutils.version") {
    const auto report = python_report("3.10.12", "1.13.1",
                                      {{"torch", "1.13.1"}, {"setuptools", "59.6.0"}}, kF2Fails);
    CHECK(with_id(judge(report, nullptr, matrix), "F2").empty());
  }
  SECTION("a warning-only check and a passing one take their words from the matrix") {
    const auto report = python_report(
        "3.8.18", "1.10.1",
        {{"torch", "1.10.1"},
         {"yapf", "0.40.1"},
         {"mmcv-full", "1.4.0"},
         {"nuscenes-devkit", "1.1.9"}},
        nlohmann::json::array({{{"id", "F3"}, {"status", "ok"}, {"evidence", "accepted"}},
                               {{"id", "F1"}, {"status", "problem"}, {"evidence", "dict_keys"}}}));
    const auto findings = judge(report, nullptr, matrix);
    const auto f3 = with_id(findings, "F3");
    REQUIRE(f3.size() == 1);
    CHECK(f3[0].severity == Severity::ok);
    CHECK(f3[0].title == "yapf 0.40.1 " + matrix.find_failure("F3")->check->ok);
    CHECK(f3[0].fix.empty());
    const auto f1 = with_id(findings, "F1");
    REQUIRE(f1.size() == 1);
    CHECK(f1[0].severity == Severity::warning);
    CHECK(f1[0].fix == matrix.find_failure("F1")->fixes.front().text);
  }
}

TEST_CASE("doctor: a venv far from its lock: a count, the pins asked for first, the rest for -v") {
  const auto& matrix = test::embedded_matrix();
  std::vector<std::pair<std::string, std::string>> pins;
  for (const char* name : {"aa", "bb", "cc", "dd", "ee", "ff", "gg"})
    pins.emplace_back(name, "1.0");
  auto lock = test::small_lock("3.12.3", pins);
  // Only `gg` was asked for; the others came with it.
  for (auto& package : lock.packages) {
    if (package.name != "gg")
      package.why = {{lockfiles::ReasonKind::required_by, "dep", "gg", {}, {}}};
  }
  auto report = python_report("3.12.3", "", {{"bb", "2.0"}}, nlohmann::json::array());
  const auto drift = with_id(judge(report, &lock, matrix), "drift");
  REQUIRE(drift.size() == 8);  // the count, then all seven packages
  CHECK_THAT(drift[0].title, Catch::Contains("7 of 7 locked packages differ") &&
                                 Catch::Contains("6 not installed, 1 at other versions"));
  CHECK_THAT(drift[0].fix, Catch::Contains("bevenv sync --venv"));
  CHECK_FALSE(drift[0].verbose_only);
  CHECK_THAT(drift[1].title, Catch::StartsWith("gg "));  // asked for: first
  for (std::size_t i = 1; i < drift.size(); ++i) {
    INFO(i);
    CHECK(drift[i].severity == Severity::problem);
    CHECK(drift[i].verbose_only == (i > 5));  // five shown, the rest with -v
  }

  CommandOutput out;
  doctor_detail::render_findings(drift, out);
  CHECK(out.json["summary"]["problems"] == 6);
  std::size_t hidden = 0;
  for (const auto& line : out.lines) hidden += line.verbose_only && line.mark == Mark::problem;
  CHECK(hidden == 2);

  // Five or fewer differences are listed one by one, with no count.
  lock.packages.resize(3);
  const auto few = with_id(judge(report, &lock, matrix), "drift");
  REQUIRE(few.size() == 3);
  for (const auto& finding : few) CHECK_FALSE(finding.verbose_only);
}

TEST_CASE("doctor: the catalogue's check ids are checks doctor runs and the probe reports") {
  const auto& matrix = test::embedded_matrix();
  const auto names = doctor_check_names();
  std::ifstream script(std::string(BEVENV_SOURCE_DIR) + "/probes/python/probe_env.py");
  const std::string probe((std::istreambuf_iterator<char>(script)),
                          std::istreambuf_iterator<char>());
  REQUIRE_FALSE(probe.empty());
  for (const auto& failure : matrix.failures) {
    INFO(failure.id);
    for (const auto& check : failure.detected_by) {
      INFO(check);
      CHECK(std::find(names.begin(), names.end(), check) != names.end());
    }
    // A `check` wording is for the Python probe's check of the same id.
    if (failure.check) CHECK_THAT(probe, Catch::Contains("run_check(\"" + failure.id + "\""));
  }
}

TEST_CASE("doctor: the recorded H200 report judged end to end, as JSON") {
  const auto dir = test::temp_dir("h200");
  const auto report_path = dir / "report.json";
  {
    std::ofstream out(report_path);
    out << test::h200_report().dump();
  }
  auto lock = test::small_lock("3.12.3", {{"setuptools", "58.0.4"}});
  lock.environment.cuda = "12.1";
  DoctorOptions options;
  options.report = report_path;
  options.lockfile = test::write_lock(dir, lock);
  options.cuda_version_override = std::nullopt;
  const CommandOutput out = doctor(options);
  const auto& checks = out.json.at("checks");
  REQUIRE(checks.size() > 10);
  for (const auto& check : checks) {
    CHECK(check.contains("id"));
    CHECK(check.contains("severity"));
    CHECK(check.contains("title"));
    CHECK(check.contains("fix"));
    CHECK(check.contains("failure"));
    if (check["severity"] != "ok") CHECK(check["fix"].is_string());
  }
  // The recorded venv has setuptools 81.0.0 against the lock's 58.0.4 (F2 cannot bite there:
  // Python 3.12, torch 2.11).
  bool drift = false;
  for (const auto& check : checks) {
    if (check["id"] == "drift" && check["severity"] == "problem") {
      drift = true;
      CHECK_THAT(check["title"].get<std::string>(), Catch::Contains("58.0.4"));
    }
  }
  CHECK(drift);
  CHECK(out.exit_code == core::ExitCode::problem_found);
  CHECK(out.json.at("summary").at("problems").get<int>() >= 1);
  CHECK(out.lines.front().text.find("host gpu-host") != std::string::npos);
  CHECK_THAT(out.lines.back().text, Catch::Contains("problem"));
}

TEST_CASE("doctor --report: a P2P matrix with an empty row is judged, not a crash") {
  const auto dir = test::temp_dir("p2prow");
  auto report = test::h200_report();
  report["driver"]["p2p"] = nlohmann::json::parse("[[null,true],[]]");
  std::ofstream(dir / "report.json") << report.dump();
  DoctorOptions options;
  options.report = dir / "report.json";
  const CommandOutput out = doctor(options);
  bool warned = false;
  for (const auto& check : out.json.at("checks")) {
    if (check["id"] == "p2p") warned = check["severity"] == "warning";
  }
  CHECK(warned);
}

TEST_CASE("doctor --report: a wrongly typed field is bad input naming the file and the field") {
  const auto dir = test::temp_dir("wrongtype");
  auto report = test::h200_report();
  report["driver"]["p2p"][0][0] = "yes";
  std::ofstream(dir / "report.json") << report.dump();
  DoctorOptions options;
  options.report = dir / "report.json";
  try {
    (void)doctor(options);
    FAIL("no error");
  } catch (const core::Error& error) {
    CHECK(error.code() == core::ExitCode::bad_input);
    CHECK(std::string(error.what()) == "`" + options.report->string() +
                                           "`: field `driver.p2p[0][0]`: expected a boolean or "
                                           "null, found a string");
    CHECK_THAT(error.hint(), Catch::Contains("bevenv-probe > report.json"));
  }
  report = test::h200_report();
  report["schema"] = 2;
  std::ofstream(dir / "report.json", std::ios::trunc) << report.dump();
  CHECK_THROWS_WITH(doctor(options), Catch::Contains("field `schema`: version 2"));
  std::filesystem::remove(dir / "report.json");
  REQUIRE(::mkfifo((dir / "report.json").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(doctor(options), Catch::Contains("is a FIFO"));
}

TEST_CASE("doctor: --check names and the probes they need") {
  CHECK(probes_for_check("shm") == std::vector<std::string>{"host"});
  CHECK(probes_for_check("F3") == std::vector<std::string>{"python"});
  CHECK(probes_for_check("driver") == std::vector<std::string>{"driver", "nvml"});
  CHECK_THROWS_AS(probes_for_check("nonsense"), core::Error);
  try {
    probes_for_check("nonsense");
  } catch (const core::Error& error) {
    CHECK(error.code() == core::ExitCode::bad_input);
    CHECK_THAT(error.hint(), Catch::Contains("`drift`"));
  }
  // Every id the judge can produce on the H200 report is a name --check accepts.
  const auto names = doctor_check_names();
  auto lock = test::small_lock("3.12.3", {{"setuptools", "58.0.4"}});
  lock.environment.cuda = "12.1";
  lock.environment.torch_cuda_arch_list = "9.0";
  lock.target.gpus = {"sm_90"};
  for (const auto& finding : judge(test::h200_report(), &lock, test::embedded_matrix())) {
    INFO(finding.check);
    CHECK(std::find(names.begin(), names.end(), finding.check) != names.end());
  }
}

}  // namespace
}  // namespace bevenv::app
