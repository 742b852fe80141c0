#pragma once
// Internal to `bevenv doctor`: running bevenv-probe and reading saved reports.
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/doctor.hpp"

namespace bevenv::app {

struct ProbeRequest {
  std::filesystem::path probe;
  std::optional<std::string> python;
  std::vector<std::string> only;  // empty: every probe
  std::optional<std::string> cuda_version_override;
  std::chrono::seconds timeout{30};
  bool import_torch = false;  // bevenv-probe --import-torch: the facts from `import torch`
};

struct ProbeRun {
  nlohmann::json report;
  int exit_code = 0;  // 0 all ran fine, 1 some probe reports a failure (the JSON says which)
  double duration_ms = 0;
};

// Throws core::Error (failure) when the probe cannot run, prints no JSON report or one that does
// not follow the report schema (probes/report_schema.hpp).
ProbeRun run_probe(const ProbeRequest& request);
// Throws core::Error (bad_input) when the file is not a regular file of at most
// core::kMaxInputBytes holding a JSON object that follows the report schema; the message names
// the file and the first wrong field.
nlohmann::json read_report(const std::filesystem::path& path);
// /proc/self/exe; empty when it cannot be read.
std::filesystem::path self_executable();
// $VIRTUAL_ENV/bin/python, $CONDA_PREFIX/bin/python, then python3 on PATH.
std::optional<std::string> default_python();
// `--python` as given, when it names this machine's interpreter or environment (or a bare name the
// probe finds on PATH); otherwise core::Error (bad_input): a check skipped is not what was asked.
std::string checked_python(const std::string& given);

}  // namespace bevenv::app
