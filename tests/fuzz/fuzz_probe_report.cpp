// libFuzzer target: any bytes read as a saved bevenv-probe report are refused with a field path
// or pass the schema check and then judge without crashing or throwing, as `bevenv doctor
// --report` does (src/app/src/doctor_probe.cpp: parse, check_report, then the rules).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string_view>

#include "bevenv/probes/findings.hpp"
#include "bevenv/probes/report_schema.hpp"
#include "fuzz_check.hpp"

namespace {

// Expectations as a lockfile and a profile would set them, so that every rule group runs.
bevenv::probes::Expectations expectations() {
  bevenv::probes::Expectations expect;
  expect.cuda_version = "11.3";
  expect.target_archs = {"8.6", "sm_90", "compute_80", "7.0+PTX"};
  expect.gpu_memory_gib = 24.0;
  expect.dataloader_workers = 8;
  expect.processes_per_node = 2;
  expect.multi_node = true;
  return expect;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);  // NOLINT
  const nlohmann::json report = nlohmann::json::parse(text, nullptr, false);
  if (report.is_discarded()) return 0;
  const auto problem = bevenv::probes::check_report(report);
  if (problem) {
    bevenv::fuzz::require(!problem->message.empty(), "a refusal says what is wrong");
    return 0;
  }
  try {
    for (const auto& finding : bevenv::probes::evaluate(report, expectations())) {
      bevenv::fuzz::require(!finding.check.empty() && !finding.title.empty(),
                            "every finding has an id and a title");
    }
    (void)bevenv::probes::evaluate(report);
  } catch (const std::exception& error) {
    // An exception here is the "internal error" bevenv doctor would print: a bug.
    bevenv::fuzz::require(false, error.what());
  }
  return 0;
}
