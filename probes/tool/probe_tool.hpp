#pragma once
// Shared declarations of bevenv-probe: options, the probes, and the report they fill.
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bevenv::probe_tool {

using json = nlohmann::json;

struct Options {
  std::set<std::string> only;                    // probe names; empty means every probe
  std::optional<std::string> arch;               // "sm_90": compile for this arch
  std::optional<std::string> compile_only_path;  // write the CUBIN here, launch nothing
  std::optional<std::string> python;             // interpreter (or environment prefix)
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  std::optional<int> cuda_version_override;  // as cuDriverGetVersion encodes it: 11020
  bool test_hooks = false;                   // BEVENV_PROBE_TEST_HOOKS=1: selftest probes
  bool fail_on_problem = false;              // --fail-on problem: exit 3 on a Python problem
  std::set<std::string> skip_checks;         // --skip-check: Python checks that cannot fail
  bool import_torch = false;  // --import-torch: torch's facts from `import torch`, not its files
};

// The CUDA version cuDriverGetVersion reports (12020) as text ("12.2").
std::string cuda_version_text(int encoded);
// Parses "12.2" into 12020; nullopt on anything else.
std::optional<int> parse_cuda_version(const std::string& text);

// A probe that stops early: what it found so far (`report`), with that status and the error (a
// message, or a failed call's error object).
inline json stopped(json report, json error, const char* status = "error") {
  report["status"] = status;
  report["error"] = std::move(error);
  return report;
}

// Every probe returns a JSON object with at least "status": ok, missing, no_device, error,
// unsupported (not built in), skipped; the isolation layer adds timeout and crashed.
json probe_host();
json probe_driver(const Options& options);
json probe_nvml();
json probe_kernel(const Options& options, const std::vector<std::string>& python_lib_dirs);
json probe_nccl(const std::vector<std::string>& python_lib_dirs);
json probe_python(const Options& options);
// Fills in what probe_env.py leaves to this tool: the architectures of torch's CUDA libraries
// (`torch.arch_list`, `torch.arch_sources`) and of the compiled ops (`ops_archs[]`), read from
// their fatbins (python_archs.cpp).
void add_fatbin_archs(json& python);
// In files mode, the libraries `import torch` would fail to load: torch/_C's DT_NEEDED walked
// as the loader would (`torch.libraries`); a missing one makes `torch.status` a problem with
// the loader's words as evidence (python_libraries.cpp).
void add_torch_libraries(json& python);
// The strings of a JSON array, at most `limit` of them; none when it is not an array.
std::vector<std::string> strings_of(const json& list, std::size_t limit);
// Only the nvidia/*/lib folders of the interpreter's site-packages (a quick run of the script).
json python_library_dirs(const Options& options);

// The Python report's problems, as `bevenv doctor` grades them: `import torch` failing, and each
// check whose status is `problem`, less those doctor calls warnings (mmcv-duplicate; F2 where
// torch >= 1.11 no longer uses distutils), F2 without torch, and those in `skip`. One line each:
// `ID: evidence`.
std::vector<std::string> python_problems(const json& python, const std::set<std::string>& skip);

bool kernel_probe_built();
bool nccl_probe_built();

}  // namespace bevenv::probe_tool
