// bevenv-probe: gathers what this host can really do with CUDA, NCCL and a Python environment,
// and prints one JSON report. Judging the report is `bevenv doctor`'s job, not this tool's.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "isolation.hpp"
#include "probe_tool.hpp"
#include "rank_run.hpp"  // cluster doctor: --rank

namespace bevenv::probe_tool {
namespace {

constexpr const char* kVersion = BEVENV_PROBE_VERSION;
constexpr int kExitOk = 0;
constexpr int kExitProbeFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitPythonProblem = 3;

constexpr const char* kHelp =
    R"(bevenv-probe: report what this host can do with CUDA, NCCL and Python, as JSON.

usage: bevenv-probe [options]

  --only LIST             probes to run, comma separated: host,driver,nvml,kernel,nccl,python
                          (default: all)
  --python PATH           Python interpreter or environment prefix to inspect
                          (default: $VIRTUAL_ENV, $CONDA_PREFIX, then python3 on PATH)
  --import-torch          learn torch's version, CUDA build, cuDNN and arch list by importing
                          it (seconds on a cold machine; also reports the GPUs torch sees)
                          instead of from its files and its libraries' fatbins
  --timeout S             seconds each probe may take before it is killed (default 30)
  --arch sm_XY            compile the kernel probe for this architecture instead of the GPU's
  --compile-only PATH     with --arch: only compile the kernel and write the CUBIN to PATH
  --cuda-version-override X.Y
                          report the driver as supporting at most CUDA X.Y (for testing)
  --fail-on problem       exit 3 when the Python probe finds what `bevenv doctor` calls a
                          problem: `import torch` fails, or a check (F1-F5, mmcv-ops) fails;
                          not mmcv-duplicate, nor F2 without torch or with torch >= 1.11.
                          Each is named on stderr. `bevenv build-image` runs this in its images
  --skip-check LIST       with --fail-on: checks that do not count, comma separated
                          (F1,F2,F3,F4,F5,mmcv-ops,mmcv-duplicate)
  --rank                  cluster mode: one process per GPU under torchrun, srun or mpirun;
                          see `bevenv-probe --rank --help`
  --version               print the version
  --help                  print this help

Each probe runs in its own process, so a hung driver or a crashing import costs only that
probe's result. Exit status: 0 every probe ran and found what it looks for; 1 some probe
reports missing, no_device, error, timeout, crashed or unsupported (the JSON says which);
2 bad command line; 3 (with --fail-on problem) a Python check found a problem.

example: bevenv-probe --python .venv/bin/python --only driver,kernel,python
)";

const std::vector<std::string> kProbeNames{"host", "driver", "nvml", "kernel", "nccl", "python"};
const std::set<std::string> kPythonCheckIds{
    "F1", "F2", "F3", "F4", "F5", "mmcv-ops", "mmcv-duplicate"};

struct UsageError {
  std::string message;
};

std::chrono::milliseconds parse_timeout(const std::string& text) {
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(seconds > 0) || seconds > 86400) {
    throw UsageError{"`--timeout` wants a number of seconds, got `" + text + "`"};
  }
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

Options parse(int argc, char** argv, bool& exit_now) {
  Options options;
  options.test_hooks = std::getenv("BEVENV_PROBE_TEST_HOOKS") != nullptr;
  auto value = [&](int& i, const std::string& flag) -> std::string {
    if (i + 1 >= argc) throw UsageError{"`" + flag + "` needs a value"};
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kHelp;
      exit_now = true;
      return options;
    }
    if (arg == "--version") {
      std::cout << "bevenv-probe " << kVersion << "\n";
      exit_now = true;
      return options;
    }
    if (arg == "--only") {
      std::stringstream list(value(i, arg));
      for (std::string name; std::getline(list, name, ',');) {
        const bool known =
            std::find(kProbeNames.begin(), kProbeNames.end(), name) != kProbeNames.end();
        const bool hook = options.test_hooks && name.rfind("selftest-", 0) == 0;
        if (!known && !hook) {
          throw UsageError{"unknown probe `" + name +
                           "`; known: host, driver, nvml, kernel, nccl, python"};
        }
        options.only.insert(name);
      }
    } else if (arg == "--python") {
      options.python = value(i, arg);
    } else if (arg == "--import-torch") {
      options.import_torch = true;
    } else if (arg == "--timeout") {
      options.timeout = parse_timeout(value(i, arg));
    } else if (arg == "--arch") {
      const std::string arch = value(i, arg);
      if (!std::regex_match(arch, std::regex("sm_[0-9]{2,3}[a-z]?"))) {
        throw UsageError{"`--arch` wants an architecture like `sm_90`, got `" + arch + "`"};
      }
      options.arch = arch;
    } else if (arg == "--compile-only") {
      options.compile_only_path = value(i, arg);
    } else if (arg == "--fail-on") {
      if (value(i, arg) != "problem") throw UsageError{"`--fail-on` takes `problem`"};
      options.fail_on_problem = true;
    } else if (arg == "--skip-check") {
      std::stringstream list(value(i, arg));
      for (std::string id; std::getline(list, id, ',');) {
        if (!kPythonCheckIds.contains(id)) {
          throw UsageError{"unknown check `" + id +
                           "`; known: F1, F2, F3, F4, F5, mmcv-ops, mmcv-duplicate"};
        }
        options.skip_checks.insert(id);
      }
    } else if (arg == "--cuda-version-override") {
      const std::string text = value(i, arg);
      options.cuda_version_override = parse_cuda_version(text);
      if (!options.cuda_version_override) {
        throw UsageError{"`--cuda-version-override` wants a version like `11.8`, got `" + text +
                         "`"};
      }
    } else {
      throw UsageError{"unknown option `" + arg + "`; see `bevenv-probe --help`"};
    }
  }
  if (!options.skip_checks.empty() && !options.fail_on_problem) {
    throw UsageError{"`--skip-check` needs `--fail-on problem`"};
  }
  if (options.compile_only_path && !options.arch) {
    throw UsageError{"`--compile-only` needs `--arch sm_XY`"};
  }
  return options;
}

// Test-only probes that prove the isolation works: one never returns, one crashes.
json selftest_probe(const std::string& name) {
  if (name == "selftest-hang") {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (name == "selftest-crash") ::raise(SIGSEGV);
  return {{"status", "ok"}};
}

std::vector<std::string> nvidia_lib_dirs(const json& python_report) {
  std::vector<std::string> dirs;
  if (python_report.contains("nvidia_lib_dirs") && python_report["nvidia_lib_dirs"].is_array()) {
    for (const auto& dir : python_report["nvidia_lib_dirs"]) {
      if (dir.is_string()) dirs.push_back(dir.get<std::string>());
    }
  }
  return dirs;
}

int run(const Options& options) {
  const auto selected = [&](const std::string& name) {
    return options.only.empty() || options.only.count(name) > 0;
  };
  json report{
      {"schema", 1},
      {"tool", "bevenv-probe"},
      {"version", kVersion},
      {"capabilities", {{"kernel", kernel_probe_built()}, {"nccl", nccl_probe_built()}}},
      {"options",
       {{"timeout_s", static_cast<double>(options.timeout.count()) / 1000.0},
        {"only", options.only},
        {"import_torch", options.import_torch},
        {"cuda_version_override", options.cuda_version_override
                                      ? json(cuda_version_text(*options.cuda_version_override))
                                      : json(nullptr)}}}};
  std::vector<std::string> ran;
  if (options.compile_only_path) {
    report["kernel"] = run_isolated(
        "kernel", [&] { return probe_kernel(options, {}); }, options.timeout);
    ran.push_back("kernel");
  } else {
    if (selected("host")) {
      report["host"] = probe_host();
      ran.push_back("host");
    }
    // The GPU probes run at once, each in its own child, while the Python probe runs here: the
    // wall time is the slowest of them (a cold cuInit, NCCL's start-up, the interpreter), not
    // their sum. The kernel and NCCL probes need the environment's `nvidia-*` library
    // directories first, which the interpreter lists in milliseconds.
    std::vector<std::string> lib_dirs;
    if ((options.python || selected("python")) && (selected("kernel") || selected("nccl"))) {
      lib_dirs = nvidia_lib_dirs(python_library_dirs(options));
    }
    const std::vector<std::pair<std::string, std::function<json()>>> isolated{
        {"driver", [&] { return probe_driver(options); }},
        {"nvml", [&] { return probe_nvml(); }},
        {"kernel", [&] { return probe_kernel(options, lib_dirs); }},
        {"nccl", [&] { return probe_nccl(lib_dirs); }}};
    std::vector<IsolatedProbe> running;
    for (const auto& [name, probe] : isolated) {
      if (selected(name)) running.push_back(start_isolated(name, probe, options.timeout));
    }
    if (selected("python")) {
      report["python"] = probe_python(options);
      ran.push_back("python");
    }
    for (auto& probe : running) {
      report[probe.name] = finish_isolated(probe);
      ran.push_back(probe.name);
    }
    for (const auto& name : options.only) {
      if (name.rfind("selftest-", 0) != 0) continue;
      report[name] = run_isolated(
          name, [name] { return selftest_probe(name); }, options.timeout);
      ran.push_back(name);
    }
  }
  bool all_ok = true;
  for (const auto& name : ran) {
    const std::string status = report[name].value("status", "error");
    all_ok = all_ok && (status == "ok" || status == "skipped");
  }
  report["status"] = all_ok ? "ok" : "incomplete";
  std::cout << report.dump(2) << "\n";
  std::cout.flush();
  if (!all_ok) return kExitProbeFailed;
  if (!options.fail_on_problem || !report.contains("python")) return kExitOk;
  const std::vector<std::string> problems = python_problems(report["python"], options.skip_checks);
  for (const auto& line : problems) std::cerr << "bevenv-probe: problem: " << line << "\n";
  return problems.empty() ? kExitOk : kExitPythonProblem;
}

}  // namespace

std::string cuda_version_text(int encoded) {
  return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

std::optional<int> parse_cuda_version(const std::string& text) {
  std::smatch match;
  if (!std::regex_match(text, match, std::regex("([0-9]{1,3})\\.([0-9]{1,2})")))
    return std::nullopt;
  return std::stoi(match[1].str()) * 1000 + std::stoi(match[2].str()) * 10;
}

}  // namespace bevenv::probe_tool

int main(int argc, char** argv) {
  using namespace bevenv::probe_tool;
  // Cluster doctor: `--rank` has its own options (rank_options.cpp).
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--rank") return rank_main(argc, argv);
  }
  try {
    bool exit_now = false;
    const Options options = parse(argc, argv, exit_now);
    if (exit_now) return kExitOk;
    return run(options);
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.message << "\n";
    return kExitUsage;
  }
}
