// The findings catalogue on synthetic reports shaped like bevenv-probe's.
#include <catch2/catch.hpp>
#include <fstream>

#include "bevenv/probes/findings.hpp"

using bevenv::probes::arch_support;
using bevenv::probes::ArchSupport;
using bevenv::probes::evaluate;
using bevenv::probes::Expectations;
using bevenv::probes::Finding;
using bevenv::probes::Severity;
using nlohmann::json;

namespace {

std::vector<Finding> with_check(const std::vector<Finding>& findings, const std::string& check) {
  std::vector<Finding> out;
  for (const auto& finding : findings) {
    if (finding.check == check) out.push_back(finding);
  }
  return out;
}

Finding only(const std::vector<Finding>& findings, const std::string& check) {
  const auto matching = with_check(findings, check);
  INFO("check " << check);
  REQUIRE(matching.size() == 1);
  return matching.front();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A fact the finding hands to the catalogue's fix template (`{sm}`); empty when absent.
std::string fact(const Finding& finding, const std::string& name) {
  for (const auto& [key, value] : finding.facts) {
    if (key == name) return value;
  }
  return "";
}

// Two floors of the matrix's toolkit table, as the app passes them (matrix/data/cuda.toml).
Expectations with_floors() {
  Expectations expect;
  expect.driver_floors = {{"11.3", "465.19.01"}, {"12.1", "530.30.02"}, {"12.4", "550.54.14"}};
  return expect;
}

// A driver section as bevenv-probe writes it on an H100/H200-class GPU.
json driver_section(const std::string& cuda, const std::string& sm, double gib, int gpus = 1) {
  json devices = json::array();
  json p2p = json::array();
  for (int i = 0; i < gpus; ++i) {
    devices.push_back({{"index", i},
                       {"name", "NVIDIA H200"},
                       {"sm", sm},
                       {"memory_total_bytes", gib * 1024 * 1024 * 1024}});
    json row = json::array();
    for (int j = 0; j < gpus; ++j) row.push_back(i == j ? json(nullptr) : json(true));
    p2p.push_back(row);
  }
  return {{"status", "ok"}, {"cuda_version", cuda}, {"devices", devices}, {"p2p", p2p}};
}

json python_section(const std::string& torch_version, const std::string& torch_cuda,
                    json arch_list) {
  return {{"status", "ok"},
          {"interpreter", {{"version", "3.8.18"}, {"executable", "/opt/env/bin/python"}}},
          {"distributions",
           {{{"name", "torch"}, {"version", torch_version}},
            {{"name", "yapf"}, {"version", "0.40.2"}},
            {{"name", "setuptools"}, {"version", "59.6.0"}}}},
          {"torch",
           {{"status", "ok"},
            {"version", torch_version},
            {"cuda", torch_cuda},
            {"arch_list", arch_list}}},
          {"checks", json::array()}};
}

}  // namespace

TEST_CASE("arch support: SASS runs on the same major with minor >= its own; PTX is JIT",
          "[probes][findings]") {
  const std::vector<std::string> torch110{"sm_37", "sm_50", "sm_60", "sm_70",
                                          "sm_75", "sm_80", "sm_86"};
  CHECK(arch_support("sm_86", torch110) == ArchSupport::sass);
  CHECK(arch_support("sm_89", torch110) == ArchSupport::sass);  // sm_86 SASS runs on 8.9
  CHECK(arch_support("sm_90", torch110) == ArchSupport::none);
  CHECK(arch_support("sm_90", {"sm_80", "compute_80"}) == ArchSupport::ptx_jit);
  CHECK(arch_support("sm_75", {"sm_80", "compute_80"}) == ArchSupport::none);
  CHECK(arch_support("9.0", {"8.0+PTX"}) == ArchSupport::ptx_jit);
  CHECK(arch_support("sm_86", {"7.5", "8.0"}) == ArchSupport::sass);
  CHECK(arch_support("sm_90", {"sm_90a"}) == ArchSupport::sass);
  CHECK(arch_support("sm_100", {"sm_90a"}) == ArchSupport::none);
  CHECK(arch_support("sm_90", {"garbage", ""}) == ArchSupport::none);
}

TEST_CASE("a driver older than the locked CUDA is a problem naming the minimum driver",
          "[probes][findings]") {
  // What `bevenv-probe --cuda-version-override 11.0` reports on a newer driver.
  json report{{"driver", driver_section("11.0", "sm_90", 141)}};
  report["driver"]["cuda_version_overridden"] = true;
  report["driver"]["real_cuda_version"] = "13.0";
  Expectations expect = with_floors();
  expect.cuda_version = "12.1";
  const auto findings = evaluate(report, expect);
  const Finding driver = only(findings, "driver");
  CHECK(driver.severity == Severity::ok);
  CHECK(contains(driver.title, "overridden"));
  const Finding cuda = only(findings, "driver-cuda");
  CHECK(cuda.severity == Severity::problem);
  CHECK(contains(cuda.title, "530.30.02"));  // the floor of the table passed in
  CHECK(cuda.field_failure == "cuda-driver-too-old");
  CHECK(fact(cuda, "driver") == "530.30.02");
  CHECK(cuda.fix.empty());  // the catalogue's to word (doctor_wording.cpp)

  // Same major: minor-version compatibility lets it run, with a warning naming the floor.
  expect.cuda_version = "11.3";
  const Finding minor = only(evaluate(report, expect), "driver-cuda");
  CHECK(minor.severity == Severity::warning);
  CHECK(minor.field_failure == "cuda-unsupported-ptx");
  CHECK(fact(minor, "driver") == "465.19.01");

  // A CUDA missing from the table: no floor to name, and no `driver` fact for a fix to use.
  expect.cuda_version = "12.7";
  CHECK(fact(only(evaluate(report, expect), "driver-cuda"), "driver").empty());

  expect.cuda_version = "11.0";
  CHECK(only(evaluate(report, expect), "driver-cuda").severity == Severity::ok);
}

TEST_CASE("a newer minor CUDA on the same major runs by minor-version compatibility",
          "[probes][findings]") {
  json report{{"driver", driver_section("12.2", "sm_90", 80)}};
  Expectations expect = with_floors();
  expect.cuda_version = "12.4";
  const Finding cuda = only(evaluate(report, expect), "driver-cuda");
  CHECK(cuda.severity == Severity::warning);
  CHECK(fact(cuda, "driver") == "550.54.14");
}

TEST_CASE("torch without sm_90 on an sm_90 GPU: no kernel image, or PTX JIT (F10)",
          "[probes][findings]") {
  json report{
      {"driver", driver_section("13.0", "sm_90", 141)},
      {"python", python_section("1.10.1+cu113", "11.3",
                                {"sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"})}};
  auto findings = evaluate(report);
  Finding arch = only(findings, "gpu-arch");
  CHECK(arch.severity == Severity::problem);
  CHECK(arch.field_failure == "F10");
  CHECK(contains(arch.title, "no kernels for sm_90"));
  CHECK(fact(arch, "sm") == "sm_90");
  CHECK(only(findings, "torch-cuda-driver").severity == Severity::ok);

  report["python"]["torch"]["arch_list"].push_back("compute_86");
  arch = only(evaluate(report), "gpu-arch");
  CHECK(arch.severity == Severity::warning);
  CHECK(contains(arch.title, "only PTX"));
  CHECK(arch.field_failure == "ptx-jit");

  report["python"]["torch"]["arch_list"].push_back("sm_90");
  CHECK(only(evaluate(report), "gpu-arch").severity == Severity::ok);
}

TEST_CASE("the stack's compiled ops are checked against the GPU too", "[probes][findings]") {
  json report{{"driver", driver_section("13.0", "sm_90", 141)}};
  Expectations expect;
  expect.target_archs = {"7.0", "7.5", "8.0", "8.6"};  // BEVFusion's hard-coded setup.py list
  const Finding ops = only(evaluate(report, expect), "ops-arch");
  CHECK(ops.severity == Severity::problem);
  CHECK(ops.field_failure == "F10");
  CHECK(fact(ops, "arch") == "9.0");  // as TORCH_CUDA_ARCH_LIST spells sm_90
}

TEST_CASE("installed compiled ops are judged by the archs their fatbins carry",
          "[probes][findings]") {
  json report{{"driver", driver_section("13.0", "sm_90", 141)},
              {"python", python_section("2.11.0+cu130", "13.0", {"sm_80", "sm_90"})}};
  report["python"]["ops_archs"] = {{{"package", "mmcv"},
                                    {"file", "/env/mmcv/_ext.so"},
                                    {"sass", {"sm_90"}},
                                    {"ptx", json::array()}},
                                   {{"package", "mmdet3d.ops.voxel"},
                                    {"file", "/env/mmdet3d/ops/voxel/voxel_layer.so"},
                                    {"sass", {"sm_75", "sm_86"}},
                                    {"ptx", json::array()}},
                                   {{"package", "mmdet3d.ops.iou3d"},
                                    {"file", "/env/mmdet3d/ops/iou3d/iou3d_cuda.so"},
                                    {"sass", {"sm_75"}},
                                    {"ptx", {"compute_75"}}},
                                   {{"package", "host_only"},
                                    {"file", "/env/x.so"},
                                    {"sass", json::array()},
                                    {"ptx", json::array()}}};
  Expectations expect;
  expect.target_archs = {"9.0"};  // what the lock says is ignored beside what is installed
  const auto ops = with_check(evaluate(report, expect), "ops-arch");
  REQUIRE(ops.size() == 3);  // one per package with CUDA code, sorted by name
  CHECK(ops[0].severity == Severity::ok);
  CHECK(contains(ops[0].title, "`mmcv` ops (1 library) carry SASS for sm_90"));
  CHECK(ops[1].severity == Severity::warning);  // PTX of 7.5 JIT-compiles on sm_90
  CHECK(ops[1].field_failure == "ptx-jit");
  CHECK(contains(ops[1].title, "iou3d_cuda.so"));
  CHECK(ops[2].severity == Severity::problem);
  CHECK(ops[2].field_failure == "F10");
  CHECK(fact(ops[2], "package") == "mmdet3d.ops.voxel");
  CHECK(fact(ops[2], "arch") == "9.0");
}

TEST_CASE("the torch build's CUDA is checked against the driver", "[probes][findings]") {
  json report{{"driver", driver_section("11.4", "sm_86", 24)},
              {"python", python_section("2.1.0+cu121", "12.1", {"sm_86"})}};
  const Finding torch = only(evaluate(report, with_floors()), "torch-cuda-driver");
  CHECK(torch.severity == Severity::problem);
  CHECK(fact(torch, "driver") == "530.30.02");
  CHECK(fact(torch, "major") == "11");
}

TEST_CASE("/dev/shm against DataLoader workers (F12)", "[probes][findings]") {
  json report{{"host",
               {{"status", "ok"},
                {"shm", {{"status", "ok"}, {"total_bytes", 64.0 * 1024 * 1024}}},
                {"container", {{"detected", true}, {"runtime", "docker"}}}}}};
  Expectations expect;
  expect.dataloader_workers = 4;
  Finding shm = only(evaluate(report, expect), "shm");
  CHECK(shm.severity == Severity::problem);
  CHECK(shm.field_failure == "F12");
  CHECK(contains(shm.title, "64 MiB"));
  CHECK(fact(shm, "size_gib") == "8");  // twice the ~2 GiB need, 8 GiB at least

  expect.dataloader_workers = 16;
  CHECK(fact(only(evaluate(report, expect), "shm"), "size_gib") == "16");

  report["host"]["shm"]["total_bytes"] = 32.0 * 1024 * 1024 * 1024;
  CHECK(only(evaluate(report, expect), "shm").severity == Severity::ok);
}

TEST_CASE("GPU memory below the profile's need is a warning (F8)", "[probes][findings]") {
  json report{{"driver", driver_section("12.2", "sm_86", 24, 4)}};
  Expectations expect;
  expect.gpu_memory_gib = 32;
  auto findings = evaluate(report, expect);
  const Finding memory = only(findings, "gpu-memory");
  CHECK(memory.severity == Severity::warning);
  CHECK(memory.field_failure == "F8");
  CHECK(contains(only(findings, "gpus").title, "4 × NVIDIA H200"));
  CHECK(only(findings, "p2p").severity == Severity::ok);

  report["driver"]["p2p"][0][1] = false;
  const Finding p2p = only(evaluate(report, expect), "p2p");
  CHECK(p2p.severity == Severity::warning);
  CHECK(contains(p2p.title, "GPU 0 and 1"));
}

TEST_CASE("Python behaviour checks become observations: check id, pass or fail, evidence",
          "[probes][findings]") {
  json report{{"python", python_section("1.10.1+cu113", "11.3", {"sm_86"})}};
  report["python"]["checks"] = {
      {{"id", "F2"},
       {"title", "distutils.version after importing setuptools"},
       {"status", "problem"},
       {"evidence", "AttributeError: module 'distutils' has no attribute 'version'"}},
      {{"id", "F3"}, {"status", "ok"}, {"evidence", "FormatCode accepts verify=True"}},
      {{"id", "F1"}, {"status", "skipped"}, {"evidence", "nuscenes-devkit is not installed"}},
      {{"id", "mmcv-duplicate"}, {"status", "problem"}, {"evidence", "both"}}};
  auto findings = evaluate(report);
  const Finding f2 = only(findings, "F2");
  CHECK(f2.severity == Severity::problem);
  CHECK(f2.title == "distutils.version after importing setuptools");
  CHECK(contains(f2.detail, "no attribute 'version'"));
  // The words and the fix are the matrix's (the app's doctor_python_checks.cpp), not the probe's.
  CHECK(f2.fix.empty());
  CHECK(f2.field_failure.empty());
  CHECK(only(findings, "F3").severity == Severity::ok);
  CHECK(only(findings, "F3").title == "F3");  // no title in the report: the check id
  CHECK(with_check(findings, "F1").empty());  // skipped: nothing was observed
  CHECK(only(findings, "mmcv-duplicate").severity == Severity::problem);

  // The observation does not depend on torch: what it means there is the matrix's to say.
  report["python"]["torch"]["version"] = "2.1.0";
  CHECK(only(evaluate(report), "F2").severity == Severity::problem);
}

TEST_CASE("driver failures map to their fixes", "[probes][findings]") {
  json report{{"driver",
               {{"status", "error"},
                {"error",
                 {{"call", "cuInit"}, {"code", 35}, {"name", "CUDA_ERROR_INSUFFICIENT_DRIVER"}}}}}};
  Finding driver = only(evaluate(report), "driver");
  CHECK(driver.severity == Severity::problem);
  CHECK(contains(driver.title, "CUDA_ERROR_INSUFFICIENT_DRIVER (35)"));
  // The error name is the evidence the catalogue recognises; the probe's fallback is an Xid.
  CHECK(contains(driver.detail, "CUDA_ERROR_INSUFFICIENT_DRIVER"));
  CHECK(driver.field_failure == "gpu-xid");

  report = {{"driver", {{"status", "no_device"}}},
            {"host", {{"status", "ok"}, {"env", {{"CUDA_VISIBLE_DEVICES", ""}}}}}};
  report["host"]["env"]["CUDA_VISIBLE_DEVICES"] = "7";
  driver = only(evaluate(report), "driver");
  CHECK(driver.field_failure == "no-cuda-device");
  CHECK(fact(driver, "visible") == "7");
}

TEST_CASE("kernel and NCCL results become findings", "[probes][findings]") {
  json report{{"driver", driver_section("12.2", "sm_90", 141, 2)},
              {"kernel",
               {{"status", "error"},
                {"nvrtc", {{"version", "13.0"}}},
                {"devices",
                 {{{"index", 0},
                   {"status", "error"},
                   {"error",
                    {{"call", "cuModuleLoadData"},
                     {"code", 222},
                     {"name", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"}}}}}}}},
              {"nccl",
               {{"status", "ok"},
                {"version", "2.28.9"},
                {"gpus", 2},
                {"results", {{{"bytes", 67108864}, {"busbw_gbps", 123.4}}}}}}};
  auto findings = evaluate(report);
  const Finding kernel = only(findings, "kernel");
  CHECK(kernel.severity == Severity::problem);
  CHECK(contains(kernel.title, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"));
  CHECK(kernel.field_failure == "cuda-unsupported-ptx");
  CHECK(fact(kernel, "nvrtc") == "13.0");
  const Finding nccl = only(findings, "nccl");
  CHECK(nccl.severity == Severity::ok);
  CHECK(contains(nccl.title, "busbw 123.4 GB/s at 64 MiB"));

  report["nccl"] = {{"status", "timeout"}};
  CHECK(only(evaluate(report), "nccl").field_failure == "F11");
}

TEST_CASE("a report that is not an object is itself a finding", "[probes][findings]") {
  const auto findings = evaluate(json::array());
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::problem);
  CHECK(bevenv::probes::to_json(findings[0])["severity"] == "problem");
}

TEST_CASE("a report captured by bevenv-probe on 2 x H200 gives clean findings",
          "[probes][findings]") {
  std::ifstream file(BEVENV_SOURCE_DIR "/tests/unit/probes/data/h200x2_report.json");
  const json report = json::parse(file);
  Expectations expect;
  expect.cuda_version = "12.1";
  expect.dataloader_workers = 8;
  const auto findings = evaluate(report, expect);
  for (const auto& finding : findings) {
    INFO(finding.check << ": " << finding.title);
    // The Python checks are observations (F2 fails there); whether one is a problem on Python
    // 3.12 with torch 2.11 is the matrix's to say, and doctor says it is not (the app's
    // test_doctor_report.cpp).
    if (finding.check == "F2") continue;
    CHECK(finding.severity != Severity::problem);
  }
  CHECK(only(findings, "F2").severity == Severity::problem);
  CHECK(contains(only(findings, "driver").title, "driver 580.159.04, supports CUDA ≤ 13.0"));
  CHECK(only(findings, "gpus").title == "2 × NVIDIA H200 (sm_90, 140 GiB)");
  CHECK(only(findings, "p2p").severity == Severity::ok);
  CHECK(with_check(findings, "kernel").size() == 2);
  CHECK(contains(only(findings, "nccl").title, "over 2 GPUs: correct, busbw"));
  CHECK(only(findings, "driver-cuda").severity == Severity::ok);
  CHECK(only(findings, "shm").severity == Severity::ok);
}

TEST_CASE("a P2P matrix with short or missing rows is no access, not a crash") {
  json report = {{"driver", driver_section("12.2", "sm_90", 80, 2)}};
  // `driver.p2p = [[null,true],[]]` once read past the end of the second row (SIGSEGV).
  for (const json& p2p : {json::parse("[[null,true],[]]"), json::parse("[[null,true]]"),
                          json::parse("[[null],[true,null]]"), json::parse("[[null,true,true]]")}) {
    report["driver"]["p2p"] = p2p;
    INFO(p2p.dump());
    const Finding finding = only(evaluate(report), "p2p");
    CHECK(finding.severity == Severity::warning);
    CHECK(contains(finding.title, "GPU 0 and 1"));
  }
}

TEST_CASE("hostile numbers in versions and architectures saturate instead of throwing") {
  json report = {{"driver", driver_section("99999999999999.0", "sm_99999999999990", 80)}};
  Expectations expect;
  expect.cuda_version = "123456789012345.1";
  expect.target_archs = {"sm_99999999999999", "x"};
  CHECK_NOTHROW(evaluate(report, expect));
  report["driver"]["devices"][0]["sm"] = "x";
  CHECK_NOTHROW(evaluate(report, expect));
  // Not an architecture at all (core/gpu_arch.hpp reads capabilities 1.0-19.9): served by none.
  CHECK(arch_support("sm_99999999999990", {"sm_99999999999990"}) == ArchSupport::none);
}
