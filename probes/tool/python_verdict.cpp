// The verdict of `--fail-on problem` on the Python probe's report: what `bevenv doctor`
// (probes/src/python_rules.cpp) would call a problem, without linking its library.
#include <cstdlib>

#include "probe_tool.hpp"

namespace bevenv::probe_tool {
namespace {

// `1.10.1+cu113` -> {1, 10}; {0, 0} when unreadable.
std::pair<int, int> major_minor(const std::string& version) {
  char* end = nullptr;
  const long major = std::strtol(version.c_str(), &end, 10);
  long minor = 0;
  if (end != nullptr && *end == '.') minor = std::strtol(end + 1, nullptr, 10);
  return {static_cast<int>(major), static_cast<int>(minor)};
}

// Checks `bevenv doctor` reports as warnings even when they fail.
bool is_warning(const std::string& id, const json& python) {
  // F1 is no pin's fault: every nuscenes-devkit release (1.1.9-1.1.11 measured) keeps
  // `dict_keys` in DetectionConfig, and it bites only under the spawn start method; the fix is in
  // the project's dataset code, so the image builds and doctor keeps reporting it.
  if (id == "mmcv-duplicate" || id == "F1") return true;
  if (id != "F2") return false;
  // F2 bites only where torch.utils.tensorboard still uses distutils: torch < 1.11, which has
  // no build for Python >= 3.12 (F2's `applies` in matrix/data/failures.toml, which doctor
  // reads; this self-contained tool cannot). No torch here is no F2 either: the image is
  // complete, and a CPU-only lock without torch must not fail on it.
  const json interpreter = python.value("interpreter", json::object());
  if (interpreter.is_object() &&
      major_minor(interpreter.value("version", "0")) >= std::pair{3, 12}) {
    return true;
  }
  const json torch = python.value("torch", json::object());
  const std::string status = torch.value("status", "");
  return status == "missing" ||
         (status == "ok" && major_minor(torch.value("version", "0")) >= std::pair{1, 11});
}

}  // namespace

std::vector<std::string> python_problems(const json& python, const std::set<std::string>& skip) {
  std::vector<std::string> out;
  if (!python.is_object()) return out;
  const json torch = python.value("torch", json::object());
  if (torch.is_object() && torch.value("status", "") == "problem")
    out.push_back("torch: `import torch` fails: " + torch.value("evidence", ""));
  const json checks = python.value("checks", json::array());
  if (!checks.is_array()) return out;
  for (const auto& check : checks) {
    if (!check.is_object() || check.value("status", "") != "problem") continue;
    const std::string id = check.value("id", "");
    if (skip.contains(id) || is_warning(id, python)) continue;
    out.push_back(id + ": " + check.value("title", "") + ": " + check.value("evidence", ""));
  }
  return out;
}

}  // namespace bevenv::probe_tool
