// Rules over the Python environment probe: the interpreter, torch, and the observations of its
// behaviour checks (F1-F5, mmcv ops and duplicates), worded later from the matrix.
#include "rules.hpp"

namespace bevenv::probes::rules {

void python_findings(const json& report, std::vector<Finding>& out) {
  const std::string status = status_of(report, "python");
  if (status.empty()) return;
  const json& python = report["python"];
  if (status != "ok") {
    const bool missing = status == "missing";
    out.push_back(
        make_finding("python", missing ? Severity::warning : Severity::problem,
                     missing ? "no Python interpreter to inspect: environment checks skipped"
                             : "the Python probe failed (" + status + ")",
                     // bevenv's own flags: usage, not knowledge of a failure.
                     missing ? "pass `--python PATH` (the training environment's interpreter)"
                             : "run `" + python.value("interpreter_path", "python") +
                                   " -c 'import torch'` to see the error",
                     "", python.value("error", "")));
    return;
  }
  const json interpreter = python.value("interpreter", json::object());
  out.push_back(make_finding("python", Severity::ok,
                             "Python " + interpreter.value("version", "?") + " at " +
                                 interpreter.value("executable", "?")));
  const json torch = python.value("torch", json::object());
  if (torch.value("status", "") == "problem") {
    // The evidence names what is missing (`libcudart.so.11.0`, a symbol): doctor's wording
    // matches it against the catalogue before falling back to a reinstall.
    // From files (no import): a library torch links against that the loader would not find.
    const bool predicted = torch.value("source", "") == "files";
    out.push_back(failure_finding("torch", Severity::problem,
                                  predicted
                                      ? "`import torch` would fail: a library it needs is not found"
                                      : "`import torch` fails",
                                  "torch-import", {}, torch.value("evidence", "")));
  }
  // Observations only: which check passed or failed, with the probe's evidence. The words a
  // user reads (what fails, the fix that fits this environment) are the matrix's failure
  // catalogue, which the app applies (doctor_python_checks.cpp).
  for (const auto& check : python.value("checks", json::array())) {
    if (!check.is_object()) continue;
    const std::string id = check.value("id", "");
    const std::string result = check.value("status", "");
    if (id.empty() || result == "skipped") continue;
    out.push_back(make_finding(id, result == "ok" ? Severity::ok : Severity::problem,
                               check.value("title", id), "", "", check.value("evidence", "")));
  }
}

}  // namespace bevenv::probes::rules
