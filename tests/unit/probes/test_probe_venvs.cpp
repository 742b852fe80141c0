// The Python probe against real venvs built from real PyPI wheels (fixture:
// make_probe_venvs.sh), and CUBINs checked with NVIDIA's own cuobjdump.
#include <catch2/catch.hpp>

#include "bevenv/probes/findings.hpp"
#include "probe_runner.hpp"

using bevenv::probes::Severity;
using namespace bevenv::probes::test;

namespace {

const std::string kVenvs = BEVENV_PROBE_VENVS;

nlohmann::json check(const nlohmann::json& python, const std::string& id) {
  for (const auto& entry : python["checks"]) {
    if (entry["id"] == id) return entry;
  }
  FAIL("no check " << id << " in " << python.dump());
  return {};
}

bevenv::probes::Finding finding(const nlohmann::json& report, const std::string& id) {
  for (const auto& entry : bevenv::probes::evaluate(report)) {
    if (entry.check == id) return entry;
  }
  FAIL("no finding " << id);
  return {};
}

std::string cuobjdump_dir() {
  if (file_exists("/usr/local/cuda/bin/cuobjdump") && file_exists("/usr/local/cuda/bin/nvdisasm")) {
    return "/usr/local/cuda/bin";
  }
  const auto found = run_command("ls -d " + shell_quote(kVenvs) +
                                 "/cudatools/lib/python3*/site-packages/nvidia/cu*/bin | head -1");
  return found.out.substr(0, found.out.find('\n'));
}

}  // namespace

TEST_CASE("setuptools 58.0.4 and yapf 0.40.1 pass F2 and F3", "[probes][venv]") {
  const auto report = run_probe("--only python --python " + shell_quote(kVenvs + "/good"));
  const auto& python = report["python"];
  INFO(python.dump(2));
  REQUIRE(python["status"] == "ok");
  CHECK(check(python, "F2")["status"] == "ok");
  CHECK(check(python, "F3")["status"] == "ok");
  CHECK(check(python, "F1")["status"] == "skipped");
  CHECK(finding(report, "F2").severity == Severity::ok);
  CHECK(finding(report, "F3").severity == Severity::ok);
  CHECK(finding(report, "F3").detail == "FormatCode accepts verify=True");
}

TEST_CASE("setuptools 59.6.0 and yapf 0.40.2 reproduce F2 and F3", "[probes][venv]") {
  const auto report = run_probe("--only python --python " + shell_quote(kVenvs + "/bad"));
  const auto& python = report["python"];
  INFO(python.dump(2));
  REQUIRE(python["status"] == "ok");
  const auto f2 = check(python, "F2");
  CHECK(f2["status"] == "problem");
  CHECK(f2["evidence"] == "AttributeError: module 'distutils' has no attribute 'version'");
  const auto f3 = check(python, "F3");
  CHECK(f3["status"] == "problem");
  CHECK(f3["evidence"] == "TypeError: FormatCode() got an unexpected keyword argument 'verify'");

  // The library reports what it observed; whether F2 can bite without torch, and the fix, are
  // the matrix's (doctor's test_doctor_venvs.cpp).
  const auto f2_finding = finding(report, "F2");
  CHECK(f2_finding.severity == Severity::problem);
  CHECK(f2_finding.detail == f2["evidence"]);
  const auto f3_finding = finding(report, "F3");
  CHECK(f3_finding.severity == Severity::problem);
  CHECK(f3_finding.fix.empty());
}

TEST_CASE("--fail-on problem exits 3 on what doctor calls a problem, 0 otherwise",
          "[probes][venv]") {
  const std::string exe = shell_quote(BEVENV_PROBE_EXE);
  const auto fail_on = [&](const std::string& venv, const std::string& more) {
    return run_command(exe + " --only python --fail-on problem --python " +
                       shell_quote(kVenvs + "/" + venv) + more + " 2>&1 >/dev/null");
  };
  const auto good = fail_on("good", "");
  INFO(good.out);
  CHECK(good.exit_code == 0);
  CHECK(good.out.empty());
  // F3 fails. F2 fails too, but without torch nothing imports distutils.version: not counted
  // (doctor, which cannot know whether torch comes later, calls it a problem).
  const auto bad = fail_on("bad", "");
  INFO(bad.out);
  CHECK(bad.exit_code == 3);
  CHECK(bad.out ==
        "bevenv-probe: problem: F3: yapf FormatCode(verify=True): TypeError: FormatCode() got an "
        "unexpected keyword argument 'verify'\n");
  CHECK(fail_on("bad", " --skip-check F3").exit_code == 0);
  int exit_code = -1;
  run_probe("--only python --python " + shell_quote(kVenvs + "/bad"), &exit_code);
  CHECK(exit_code == 0);  // without --fail-on the report is the product, whatever it says
}

TEST_CASE("cuobjdump confirms the CUBIN is SASS for the requested sm", "[probes][venv]") {
  const std::string tools = cuobjdump_dir();
  REQUIRE_FALSE(tools.empty());
  for (const std::string digits : {"80", "90"}) {
    const std::string cubin = kVenvs + "/probe_sm_" + digits + ".cubin";
    int exit_code = -1;
    const auto report =
        run_probe("--arch sm_" + digits + " --compile-only " + shell_quote(cubin), &exit_code);
    REQUIRE(exit_code == 0);
    const std::string env = "PATH=" + shell_quote(tools) + ":\"$PATH\" ";
    const auto elf = run_command(env + "cuobjdump --list-elf " + shell_quote(cubin));
    REQUIRE(elf.exit_code == 0);
    CHECK(elf.out.find(".sm_" + digits + ".cubin") != std::string::npos);
    const auto sass = run_command(env + "cuobjdump --dump-sass " + shell_quote(cubin));
    INFO(sass.out);
    REQUIRE(sass.exit_code == 0);
    CHECK(sass.out.find("code for sm_" + digits) != std::string::npos);
    CHECK(sass.out.find("Function : bevenv_probe_affine") != std::string::npos);
    CHECK(sass.out.find("EF_CUDA_SM" + digits) != std::string::npos);
  }
}
