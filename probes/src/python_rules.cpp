// Rules over the Python environment probe: the interpreter, torch, and the field-failure
// behaviour checks (F1-F5, mmcv ops and duplicates).
#include "rules.hpp"

namespace bevenv::probes::rules {
namespace {

struct CheckAdvice {
  const char* id;
  const char* package;  // whose version the title names
  const char* problem;  // what goes wrong, after "<package> <version>"
  const char* ok;
  const char* fix;
  const char* field_failure;
};

constexpr CheckAdvice kAdvice[] = {
    {"F2", "setuptools",
     "no longer imports `distutils.version`: torch.utils.tensorboard fails with "
     "\"module 'distutils' has no attribute 'version'\"",
     "keeps `distutils.version` importable",
     "`pip install 'setuptools<59.6'` (58.0.4 is the "
     "field-tested pin)",
     "F2"},
    {"F3", "yapf", "rejects `FormatCode(verify=True)`: mmcv's Config.pretty_text raises TypeError",
     "accepts `FormatCode(verify=True)`", "`pip install yapf==0.40.1`", "F3"},
    {"F1", "nuscenes-devkit",
     "DetectionConfig cannot be pickled: DataLoader workers fail with "
     "\"cannot pickle 'dict_keys' object\"",
     "DetectionConfig pickles",
     "make `class_names` a `list(...)` in a `DetectionConfig` subclass your dataset uses, or "
     "keep the fork start method (no nuscenes-devkit release fixes it)",
     "F1"},
    {"F4", "torchpack", "lacks `torchpack.utils.tqdm`: BEVFusion's tools fail to import",
     "has `torchpack.utils.tqdm`",
     "install torchpack from its git repository, or import `tqdm` directly", "F4"},
    {"mmcv-ops", "mmcv", "has no working compiled ops (`mmcv._ext` does not import)",
     "has its compiled ops (`mmcv._ext`)",
     "uninstall the ops-free `mmcv`/`mmcv-lite` and install `mmcv-full` built for this torch and "
     "CUDA",
     ""},
    {"F5", "mmdet3d", "compiled ops do not import (the CUDA extensions were not built)",
     "compiled ops import",
     "build them: `python setup.py develop` with `TORCH_CUDA_ARCH_LIST` set (bevenv build-image "
     "does this)",
     "F5"},
    {"mmcv-duplicate", "mmcv-full",
     "is installed beside `mmcv`; both own the `mmcv/` folder and the last install wins",
     "is the only mmcv distribution",
     "`pip uninstall -y mmcv mmcv-full` then reinstall `mmcv-full`", ""},
};

std::string normalized(std::string name) {
  for (auto& c : name) {
    c = (c == '_' || c == '.') ? '-'
                               : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

std::string installed_version(const json& python, const std::string& package) {
  for (const auto& dist : python.value("distributions", json::array())) {
    if (normalized(dist.value("name", "")) == package) return dist.value("version", "");
  }
  return "";
}

// F2 bites only where torch.utils.tensorboard still uses distutils (torch < 1.11).
Severity f2_severity(const json& python) {
  const json torch = python.value("torch", json::object());
  if (torch.value("status", "") != "ok") return Severity::problem;
  return major_minor(torch.value("version", "0")) < std::pair{1, 11} ? Severity::problem
                                                                     : Severity::warning;
}

}  // namespace

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
    out.push_back(make_finding("torch", Severity::problem, "`import torch` fails",
                               "reinstall the locked torch build (`bevenv sync`)", "",
                               torch.value("evidence", "")));
  }
  for (const auto& check : python.value("checks", json::array())) {
    const std::string id = check.value("id", "");
    const std::string result = check.value("status", "");
    if (result == "skipped") continue;
    const CheckAdvice* advice = nullptr;
    for (const auto& entry : kAdvice) {
      if (id == entry.id) advice = &entry;
    }
    if (advice == nullptr) continue;
    const std::string version = installed_version(python, advice->package);
    const std::string subject =
        std::string(advice->package) + (version.empty() ? "" : " " + version) + " ";
    if (result == "ok") {
      out.push_back(make_finding(id, Severity::ok, subject + advice->ok));
      continue;
    }
    Severity severity = Severity::problem;
    if (id == "F2") severity = f2_severity(python);
    if (id == "mmcv-duplicate") severity = Severity::warning;
    out.push_back(make_finding(id, severity, subject + advice->problem, advice->fix,
                               advice->field_failure, check.value("evidence", "")));
  }
}

}  // namespace bevenv::probes::rules
