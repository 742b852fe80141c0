// The target of a lock (src/app/src/lock_target.cpp, lock_target_gap.cpp, explain_virtuals.cpp):
// where each fact comes from, a driver version read as the CUDA it supports, the one-line reason
// a target rules out a profile, and explanation steps about virtual records in plain words.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "bevenv/app/doctor.hpp"
#include "bevenv/app/matrix_source.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/matrix/loader.hpp"
#include "explain_virtuals.hpp"
#include "lock_inputs.hpp"
#include "lock_target.hpp"
#include "lock_target_gap.hpp"
#include "lock_translate.hpp"

namespace app = bevenv::app;
namespace solver = bevenv::solver;

namespace {

const bevenv::matrix::Matrix& embedded() {
  static const bevenv::matrix::Matrix m = app::load_matrix_or_throw({});
  return m;
}

// Sets a variable for one scope.
struct Env {
  std::string name;
  Env(std::string n, const char* value) : name(std::move(n)) { ::setenv(name.c_str(), value, 1); }
  ~Env() { ::unsetenv(name.c_str()); }
};

app::LockInputs inputs_for(const std::string& profile, const std::string& gpu,
                           const std::string& driver) {
  app::LockOptions options;
  options.profile = profile;
  options.target.gpus = {gpu};
  options.target.cuda_driver = driver;
  return app::gather_lock_inputs(options);
}

}  // namespace

TEST_CASE("a driver version is read as the CUDA version it supports") {
  CHECK(app::cuda_of_driver_version("535.104.05", embedded()) == "12.2");
  CHECK(app::cuda_of_driver_version("470.42.01", embedded()) == "11.4");
  CHECK(app::cuda_of_driver_version("470", embedded()) == "11.3");  // below 470.42.01
  CHECK(app::cuda_of_driver_version("580.95.05", embedded()) == "13.0");
  CHECK_FALSE(app::cuda_of_driver_version("12.2", embedded()).has_value());
  CHECK_THROWS(app::cuda_of_driver_version("300.1", embedded()));
}

TEST_CASE("`--cuda-driver 12` is CUDA 12.0, and a toolkit patch release is its X.Y") {
  const auto driver_for = [](const std::string& text) {
    app::TargetOverrides flags;
    flags.cuda_driver = text;
    return app::choose_target({}, flags, embedded(), nullptr).overrides.cuda_driver;
  };
  CHECK(driver_for("12") == "12.0");
  CHECK(driver_for("12.2.1") == "12.2");
  CHECK(driver_for("11.8") == "11.8");
  CHECK(driver_for("twelve") == "twelve");  // left to the version parser, which names it
}

TEST_CASE("flags win over BEVENV_* variables, which win over bevenv.toml") {
  const Env driver("BEVENV_CUDA_DRIVER", "12.2");
  const Env gpus("BEVENV_GPUS", "sm_86, sm_90");
  app::TargetOverrides project;
  project.cuda_driver = "11.3";
  SECTION("the variables over the project file") {
    const auto choice = app::choose_target(project, {}, embedded(), nullptr);
    CHECK(choice.overrides.cuda_driver == "12.2");
    CHECK(choice.overrides.driver_from == "`BEVENV_CUDA_DRIVER`");
    CHECK(choice.overrides.gpus == std::vector<std::string>{"sm_86", "sm_90"});
  }
  SECTION("a flag over both, and a driver version corrected with a note") {
    app::TargetOverrides flags;
    flags.cuda_driver = "535.104.05";
    const auto choice = app::choose_target(project, flags, embedded(), nullptr);
    CHECK(choice.overrides.cuda_driver == "12.2");
    CHECK(choice.overrides.driver_from == "`--cuda-driver`");
    REQUIRE(choice.notes.size() == 1);
    CHECK(choice.notes[0].find("is a driver version") != std::string::npos);
  }
}

TEST_CASE("a GPU profile with no target named says so; `--gpu none` is a CPU target") {
  const auto* bevfusion = embedded().find_profile("bevfusion");
  REQUIRE(bevfusion != nullptr);
  if (std::getenv("BEVENV_GPUS") != nullptr || std::getenv("BEVENV_CUDA_DRIVER") != nullptr) {
    WARN("skipped: BEVENV_GPUS or BEVENV_CUDA_DRIVER is set in this environment");
    return;
  }
  app::TargetOverrides none;
  none.gpus = {"none"};
  const auto cpu = app::choose_target({}, none, embedded(), bevfusion);
  CHECK(cpu.overrides.gpus.empty());
  CHECK(cpu.warnings.empty());
  app::TargetOverrides driver_only;
  driver_only.cuda_driver = "12.2";
  CHECK(app::choose_target({}, driver_only, embedded(), bevfusion).warnings.empty());
}

TEST_CASE("the target's reason in one line") {
  const auto hopper = app::target_gap(inputs_for("bevfusion", "sm_90", "13.0"));
  REQUIRE(hopper.has_value());
  CHECK(hopper->find("has no kernels for sm_90") != std::string::npos);
  CHECK(hopper->find("CUDA 11.3 cannot build them") != std::string::npos);
  CHECK_FALSE(app::target_gap(inputs_for("bevfusion", "sm_86", "12.2")).has_value());
  // Ada runs torch 1.10's sm_86 SASS.
  CHECK_FALSE(app::target_gap(inputs_for("bevfusion", "sm_89", "12.4")).has_value());
  const auto old_driver = app::target_gap(inputs_for("uniad-2.0", "sm_70", "10.2"));
  REQUIRE(old_driver.has_value());
  CHECK(old_driver->find("needs a driver for CUDA >= 11.7") != std::string::npos);
}

namespace {

// The solver's account of a requirement nothing meets: step `text` requires `dependency`, and a
// child step `nothing` says no version of `package` matches it.
solver::ExplanationStep unmet(const std::string& text, const std::string& dependency,
                              const std::string& package, const std::string& nothing) {
  solver::ExplanationStep none;
  none.kind = solver::StepKind::nothing_matches;
  none.package = package;
  none.text = nothing;
  solver::ExplanationStep needs;
  needs.kind = solver::StepKind::requires_;
  needs.text = text;
  needs.dependency = dependency;
  needs.children.push_back(none);
  return needs;
}

}  // namespace

TEST_CASE("steps about virtual records are told as target facts") {
  app::TargetFacts target;
  target.python = bevenv::core::Version::parse("3.12.7").value();
  target.python_minor = "3.12";
  target.python_from = "`--python`";
  const auto needs = unmet("which requires __python >=3.8,<3.12   (torch 2.0.1 (Python range))",
                           "__python >=3.8,<3.12", app::kPythonVirtual,
                           "no __python matches >=3.8,<3.12   (the system has 3.12.7)");
  const auto kernels =
      unmet("torch 1.9.1+cu111 requires __kernels-sm_90   (torch 1.9.1+cu111 (no SASS))",
            "__kernels-sm_90", "__kernels-sm_90", "no package provides __kernels-sm_90");
  solver::Unsolvable unsolvable;
  unsolvable.problems.push_back({{needs, kernels}});
  app::describe_virtuals(unsolvable, target);
  const auto& steps = unsolvable.problems[0].steps;
  CHECK(steps[0].text == "which needs Python >=3.8,<3.12   (torch 2.0.1 (Python range))");
  CHECK(steps[0].children[0].text == "the target is Python 3.12.7 (`--python`)");
  CHECK(steps[1].text == "torch 1.9.1+cu111 has no kernels (SASS or PTX) for sm_90");
  CHECK(steps[1].children.empty());
  for (const auto& line : bevenv::solver::render_explanation(unsolvable)) {
    CHECK(line.find("__") == std::string::npos);
    CHECK(line.find("the system has") == std::string::npos);
  }
}

namespace {

// The H200 report of tests/unit/probes/data, recorded by doctor and loaded back as an overlay.
bevenv::matrix::Matrix matrix_with_record_of(const std::string& report_path,
                                             const std::string& date) {
  const auto report = nlohmann::json::parse(bevenv::core::read_file(report_path));
  const auto overlay = app::observed_overlay(report, {}, embedded(), date, "");
  auto files = bevenv::matrix::embedded_files();
  files.push_back({"observed/h200.toml", overlay.text, 1, bevenv::matrix::Layer::observed});
  auto loaded = bevenv::matrix::load_sources(files);
  REQUIRE(loaded);
  return std::move(loaded.value());
}

}  // namespace

TEST_CASE("the NVIDIA driver's version is read from /proc/driver/nvidia/version") {
  CHECK(app::driver_of_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  "
                                    "Tue Sep 23 09:42:44 UTC 2025\nGCC version:  gcc 12\n") ==
        "580.95.05");
  CHECK(app::driver_of_proc_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                    "580.159.04  Release Build  (dvs-builder@U22)  Mon\n") ==
        "580.159.04");
  CHECK_FALSE(app::driver_of_proc_version("GCC version: gcc 12.2.0\n").has_value());
  CHECK_FALSE(app::driver_of_proc_version("").has_value());
}

TEST_CASE("doctor --record keeps the host's facts, and a lock on that host takes its target") {
  const auto matrix = matrix_with_record_of(BEVENV_H200_REPORT, "2026-12-02");
  REQUIRE(matrix.observed_hosts.size() == 1);
  const auto& host = matrix.observed_hosts.front();
  CHECK(host.hostname == "gpu-host");
  CHECK(host.driver == "580.159.04");
  CHECK(host.cuda_driver.to_string() == "13.0");
  CHECK(host.gpus == std::vector<std::string>{"sm_90", "sm_90"});
  CHECK(host.kernels.at("sm_90") == "cubin");
  CHECK(host.nccl_version == "2.28.3");
  CHECK(host.nccl_outcome == "ok");
  CHECK(host.shm_bytes == 274877906944);

  SECTION("same host, same driver: the record is the target, and says where it came from") {
    const auto choice =
        app::choose_target({}, {}, matrix, nullptr, app::LocalHost{"gpu-host", "580.159.04"});
    CHECK(choice.overrides.cuda_driver == "13.0");
    CHECK(choice.overrides.gpus == std::vector<std::string>{"sm_90", "sm_90"});
    CHECK(choice.overrides.driver_from ==
          "observed on this host 2026-12-02: driver 580.159.04, sm_90 kernel as cubin");
    REQUIRE(choice.notes.size() == 1);
    CHECK(choice.notes.front().find("target from this host's record") != std::string::npos);
    const auto facts = app::resolve_target(choice.overrides, "3.8");
    CHECK(facts.describe().find("CUDA driver 13.0, sm_90") != std::string::npos);
  }
  SECTION("another driver loaded: the record is stale and the note says how to refresh it") {
    const auto choice =
        app::choose_target({}, {}, matrix, nullptr, app::LocalHost{"gpu-host", "575.51.03"});
    CHECK_FALSE(choice.overrides.cuda_driver.has_value());
    REQUIRE_FALSE(choice.notes.empty());
    CHECK(choice.notes.front().find("names driver 580.159.04, but driver 575.51.03 is loaded") !=
          std::string::npos);
    CHECK(choice.notes.front().find("`bevenv doctor --record`") != std::string::npos);
  }
  SECTION("another host, or a target named: the record plays no part") {
    CHECK_FALSE(app::choose_target({}, {}, matrix, nullptr, app::LocalHost{"other", "580.159.04"})
                    .overrides.cuda_driver.has_value());
    app::TargetOverrides flags;
    flags.cuda_driver = "12.2";
    const auto named =
        app::choose_target({}, flags, matrix, nullptr, app::LocalHost{"gpu-host", "580.159.04"});
    CHECK(named.overrides.cuda_driver == "12.2");
    CHECK(named.overrides.gpus.empty());
    CHECK(named.notes.empty());
  }
}

TEST_CASE("the newest record of a host wins") {
  auto matrix = embedded();
  bevenv::matrix::ObservedHost old_record;
  old_record.hostname = "box";
  old_record.date = "2026-11-01";
  old_record.driver = "535.104.05";
  old_record.cuda_driver = bevenv::core::Version::parse("12.2").value();
  old_record.gpus = {"sm_86"};
  auto new_record = old_record;
  new_record.date = "2026-12-01";
  new_record.driver = "580.95.05";
  new_record.cuda_driver = bevenv::core::Version::parse("13.0").value();
  new_record.gpus = {"sm_120"};
  matrix.observed_hosts = {new_record, old_record};
  const auto* found = app::observed_host_for(matrix, app::LocalHost{"box", "580.95.05"});
  REQUIRE(found != nullptr);
  CHECK(found->date == "2026-12-01");
  CHECK(app::observed_origin(*found) == "observed on this host 2026-12-01: driver 580.95.05");
}
