// bevenv-probe on a real GPU host. Skips (exit 77) where there is no working driver and GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <set>
#include <sstream>

#include "bevenv/probes/findings.hpp"
#include "probe_runner.hpp"

using bevenv::probes::Severity;
using namespace bevenv::probes::test;

namespace {

constexpr int kSkip = 77;

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  while (!text.empty() && text.front() == ' ') text.erase(0, 1);
  return text;
}

// nvidia-smi's view of the GPUs (the oracle), or empty when nvidia-smi is absent.
std::set<std::string> nvidia_smi_uuids() {
  std::set<std::string> uuids;
  const auto listed = run_command("nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null");
  if (listed.exit_code != 0) return uuids;
  std::stringstream lines(listed.out);
  for (std::string line; std::getline(lines, line);) {
    if (!trim(line).empty()) uuids.insert(trim(line));
  }
  return uuids;
}

}  // namespace

TEST_CASE("the driver and NVML agree with nvidia-smi", "[gpu]") {
  const auto report = run_probe("--only driver,nvml");
  const auto& driver = report["driver"];
  REQUIRE(driver["status"] == "ok");
  REQUIRE(driver["device_count"].get<int>() >= 1);
  std::set<std::string> driver_uuids;
  for (const auto& device : driver["devices"]) {
    CHECK(device["sm"].get<std::string>().rfind("sm_", 0) == 0);
    CHECK(device["memory_total_bytes"].get<double>() > 1e9);
    driver_uuids.insert(device["uuid"].get<std::string>());
  }
  const auto smi = nvidia_smi_uuids();
  if (smi.empty()) {
    WARN("nvidia-smi not available; UUIDs not cross-checked");
  } else {
    for (const auto& uuid : driver_uuids) CHECK(smi.count(uuid) == 1);
  }
  if (report["nvml"]["status"] == "ok") {
    std::set<std::string> nvml_uuids;
    for (const auto& device : report["nvml"]["devices"]) nvml_uuids.insert(device["uuid"]);
    for (const auto& uuid : driver_uuids) CHECK(nvml_uuids.count(uuid) == 1);
    const auto version = run_command(
        "nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1");
    if (version.exit_code == 0 && !trim(version.out).empty()) {
      CHECK(report["nvml"]["driver_version"] == trim(version.out));
    }
  }
  const auto p2p = driver["p2p"];
  CHECK(p2p.size() == driver_uuids.size());
}

TEST_CASE("the kernel probe compiles for each GPU's sm, launches and verifies", "[gpu]") {
  const auto report = run_probe("--only driver,kernel");
  const auto& kernel = report["kernel"];
  INFO(kernel.dump(2));
  REQUIRE(kernel["status"] == "ok");
  const auto& devices = report["driver"]["devices"];
  REQUIRE(kernel["devices"].size() == devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& result = kernel["devices"][i];
    CHECK(result["arch"] == devices[i]["sm"]);
    CHECK(result["image"] == "cubin");
    CHECK(result["wrong_elements"] == 0);
    CHECK(result["elements"] == 1048576);
    CHECK(result["kernel_ms"].get<double>() > 0);
  }
  for (const auto& finding : bevenv::probes::evaluate(report)) {
    INFO(finding.check << ": " << finding.title);
    CHECK(finding.severity != Severity::problem);
  }
}

TEST_CASE("a CUBIN for another major architecture is refused by the driver (F10)", "[gpu]") {
  const auto probe = run_probe("--only driver");
  const std::string sm = probe["driver"]["devices"][0]["sm"];
  const std::string other = sm.rfind("sm_8", 0) == 0 ? "sm_90" : "sm_80";
  const auto report = run_probe("--only driver,kernel --arch " + other);
  const auto& device = report["kernel"]["devices"][0];
  INFO(report["kernel"].dump(2));
  CHECK(device["status"] == "error");
  CHECK(device["error"]["name"] == "CUDA_ERROR_NO_BINARY_FOR_GPU");
}

TEST_CASE("NCCL all-reduces correctly over every visible GPU", "[gpu]") {
  const auto report = run_probe("--only driver,nccl --timeout 120");
  const auto& nccl = report["nccl"];
  INFO(nccl.dump(2));
  REQUIRE(nccl["status"] == "ok");
  const int gpus = nccl["gpus"];
  CHECK(gpus == report["driver"]["device_count"].get<int>());
  CHECK(nccl["correct"] == true);
  // Three sizes across GPUs; one alone has no link to measure, only its sums to check.
  REQUIRE(nccl["results"].size() == (gpus > 1 ? 3U : 1U));
  for (const auto& result : nccl["results"]) {
    CHECK(result["wrong_elements"] == 0);
    const double algbw = result["algbw_gbps"];
    CHECK(algbw > 0);
    CHECK(result["busbw_gbps"].get<double>() ==
          Approx(algbw * 2.0 * (gpus - 1) / gpus).margin(1e-9));
  }
}

int main(int argc, char** argv) {
  // Outside a Catch session, so no run_command (it REQUIREs).
  std::string out;
  if (FILE* pipe =
          ::popen((shell_quote(BEVENV_PROBE_EXE) + " --only driver 2>/dev/null").c_str(), "r")) {
    char buffer[4096];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
      out.append(buffer, got);
    }
    ::pclose(pipe);
  }
  const auto report = nlohmann::json::parse(out, nullptr, false);
  if (report.is_discarded() || !report.contains("driver") ||
      report["driver"].value("status", "") != "ok") {
    std::printf(
        "SKIP: no working CUDA driver and GPU here (%s)\n",
        report.is_discarded() ? "no report" : report["driver"].value("status", "?").c_str());
    return kSkip;
  }
  return Catch::Session().run(argc, argv);
}
