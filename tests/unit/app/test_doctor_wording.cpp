// doctor's findings in the catalogue's words: each probe verdict names a catalogued failure and
// the facts it saw; the fix a user reads, fitted to the check and the host, is the matrix's
// (matrix/data/failures.toml), and the error text a user would see is quoted after the finding.
#include <catch2/catch.hpp>

#include "doctor_internal.hpp"
#include "doctor_support.hpp"

namespace bevenv::app {
namespace {

using probes::Severity;
using test::with_id;

probes::Finding judged(const nlohmann::json& report, const std::string& check,
                       const lockfiles::Lockfile* lock = nullptr) {
  const auto found =
      with_id(judge_report(report, DoctorContext{lock, &test::embedded_matrix()}), check);
  INFO("check " << check);
  REQUIRE(found.size() == 1);
  return found[0];
}

nlohmann::json host_with_shm(double bytes, bool container) {
  nlohmann::json report = test::h200_report();
  report["host"]["shm"] = {{"status", "ok"}, {"total_bytes", bytes}};
  report["host"]["container"] = {{"detected", container}};
  return report;
}

}  // namespace

TEST_CASE("doctor words the GPU architecture findings from F10 and ptx-jit") {
  nlohmann::json report = test::h200_report();
  report["python"]["torch"]["arch_list"] = {"sm_75", "sm_80", "sm_86"};
  const auto none = judged(report, "gpu-arch");
  CHECK(none.severity == Severity::problem);
  CHECK(none.field_failure == "F10");
  CHECK_THAT(none.title, Catch::Contains("\"no kernel image is available for execution on the "
                                         "device\""));
  CHECK_THAT(none.fix, Catch::Contains("`sm_90` in `torch.cuda.get_arch_list()`"));

  report["python"]["torch"]["arch_list"].push_back("compute_86");
  const auto ptx = judged(report, "gpu-arch");
  CHECK(ptx.severity == Severity::warning);
  CHECK(ptx.field_failure == "ptx-jit");
  CHECK_THAT(ptx.fix, Catch::Contains("`sm_90`") && Catch::Contains("CUDA_CACHE_MAXSIZE"));
}

TEST_CASE("doctor fits the /dev/shm fix to a container or a bare host (F12)") {
  const double small = 64.0 * 1024 * 1024;
  const auto container = judged(host_with_shm(small, true), "shm");
  CHECK(container.field_failure == "F12");
  CHECK_THAT(container.fix, Catch::Contains("--shm-size=8g"));
  CHECK_THAT(container.title, Catch::Contains("Bus error"));
  CHECK_THAT(judged(host_with_shm(small, false), "shm").fix,
             Catch::Contains("mount -o remount,size=8G /dev/shm"));
}

TEST_CASE("doctor recognises the CUDA error in a failed cuInit") {
  nlohmann::json report = test::h200_report();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"CUDA_ERROR_INSUFFICIENT_DRIVER", "cuda-driver-too-old"},
      {"CUDA_ERROR_STUB_LIBRARY", "cuda-stub-library"},
      {"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "cuda-driver-mismatch"},
      {"CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "cuda-compat-unsupported"},
      {"CUDA_ERROR_UNKNOWN", "gpu-xid"},
  };
  for (const auto& [name, failure] : cases) {
    report["driver"] = {{"status", "error"}, {"error", {{"call", "cuInit"}, {"name", name}}}};
    const auto driver = judged(report, "driver");
    INFO(name);
    CHECK(driver.field_failure == failure);
    CHECK_FALSE(driver.fix.empty());
  }
  report["driver"] = {{"status", "error"},
                      {"error", {{"call", "cuInit"}, {"name", "CUDA_ERROR_INSUFFICIENT_DRIVER"}}}};
  CHECK_THAT(judged(report, "driver").fix, Catch::Contains("upgrade the NVIDIA driver"));
}

TEST_CASE("doctor names what CUDA_VISIBLE_DEVICES hides, only when it is set") {
  nlohmann::json report = test::h200_report();
  report["driver"] = {{"status", "no_device"}};
  report["host"]["env"]["CUDA_VISIBLE_DEVICES"] = "7";
  CHECK_THAT(judged(report, "driver").fix, Catch::Contains("(now `7`)"));
  report["host"]["env"].erase("CUDA_VISIBLE_DEVICES");
  const auto unset = judged(report, "driver");
  CHECK(unset.field_failure == "no-cuda-device");
  CHECK_THAT(unset.fix, Catch::Contains("--gpus all"));
  CHECK(unset.fix.find('{') == std::string::npos);
}

TEST_CASE("doctor words a kernel probe failure with the probe's NVRTC") {
  nlohmann::json report = test::h200_report();
  report["kernel"] = {{"status", "error"},
                      {"nvrtc", {{"version", "13.0"}}},
                      {"devices",
                       {{{"index", 0},
                         {"status", "error"},
                         {"error", {{"name", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"}}}}}}};
  const auto kernel = judged(report, "kernel");
  CHECK(kernel.field_failure == "cuda-unsupported-ptx");
  CHECK_THAT(kernel.fix, Catch::Contains("NVRTC 13.0 is newer than the driver"));
}

TEST_CASE("a torch that does not import is explained by its evidence") {
  nlohmann::json report = test::h200_report();
  report["python"]["torch"] = {
      {"status", "problem"},
      {"evidence",
       "ImportError: libcudart.so.11.0: cannot open shared object file: No such "
       "file or directory"}};
  const auto torch = judged(report, "torch");
  CHECK(torch.field_failure == "cuda-library-missing");
  CHECK_THAT(torch.fix, Catch::Contains("libcudart.so.11.0"));
  report["python"]["torch"]["evidence"] = "ImportError: something else";
  CHECK(judged(report, "torch").field_failure == "torch-import");
}

TEST_CASE("every failing finding of the recorded reports has a fix without a stray brace") {
  nlohmann::json report = test::h200_report();
  report["python"]["torch"]["arch_list"] = {"sm_75"};
  report["host"]["shm"] = {{"status", "ok"}, {"total_bytes", 1024.0}};
  report["nvml"]["devices"][0]["mig"] = "enabled";
  auto lock = test::small_lock("3.8.18", {});
  lock.environment.cuda = "13.9";
  lock.environment.torch_cuda_arch_list = "7.0";
  lock.target.gpus = {"sm_86"};
  for (const auto& finding : judge_report(report, DoctorContext{&lock, &test::embedded_matrix()})) {
    if (finding.severity == Severity::ok) continue;
    INFO(finding.check << ": " << finding.title);
    CHECK_FALSE(finding.fix.empty());
    CHECK(finding.fix.find('{') == std::string::npos);
  }
}

}  // namespace bevenv::app
