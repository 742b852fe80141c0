// Finding and running bevenv-probe (a child process with a timeout), and the interpreter it
// should inspect.
#include "doctor_probe.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/core/subprocess.hpp"
#include "bevenv/core/text_input.hpp"
#include "bevenv/probes/report_schema.hpp"
#include "bevenv/util/env.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;

bool is_executable(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<fs::path> on_path(const std::string& name) {
  const auto path = util::env("PATH");
  if (!path) return std::nullopt;
  std::stringstream dirs(*path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && is_executable(fs::path(dir) / name)) return fs::path(dir) / name;
  }
  return std::nullopt;
}

std::string tail(const std::string& text, std::size_t size) {
  return text.size() <= size ? text : "..." + text.substr(text.size() - size);
}

// Every report passes here before a rule reads it, so that the rules may trust the types.
void require_schema(const nlohmann::json& report, const std::string& source, core::ExitCode code,
                    const std::string& hint) {
  const auto problem = probes::check_report(report);
  if (!problem) return;
  const std::string where = problem->field.empty() ? "" : " field `" + problem->field + "`:";
  throw core::Error(code, source + ":" + where + " " + problem->message, hint);
}

}  // namespace

fs::path find_probe(const std::optional<fs::path>& explicit_path, const fs::path& self) {
  if (explicit_path) {
    if (is_executable(*explicit_path)) return *explicit_path;
    throw core::Error(core::ExitCode::bad_input,
                      "`--probe " + explicit_path->string() + "` is not an executable file",
                      "pass the path of a built `bevenv-probe`");
  }
  if (const auto env = util::env("BEVENV_PROBE")) {
    if (is_executable(*env)) return *env;
    throw core::Error(core::ExitCode::bad_input,
                      "`BEVENV_PROBE=" + *env + "` is not an executable file",
                      "point it at a built `bevenv-probe`, or unset it");
  }
  std::vector<fs::path> tried;
  const fs::path me = self.empty() ? self_executable() : self;
  if (!me.empty()) {
    const fs::path dir = me.parent_path();
    tried.push_back(dir / "bevenv-probe");
    // The build tree: build/src/cli/bevenv beside build/probes/bevenv-probe.
    tried.push_back((dir / ".." / ".." / "probes" / "bevenv-probe").lexically_normal());
  }
  for (const auto& candidate : tried) {
    if (is_executable(candidate)) return candidate;
  }
  if (auto found = on_path("bevenv-probe")) return *found;
  std::string where;
  for (const auto& candidate : tried) where += "`" + candidate.string() + "`, ";
  throw core::Error(core::ExitCode::failure,
                    "cannot find `bevenv-probe` (looked at " + where + "and PATH)",
                    "build it (`cmake --build BUILD --target bevenv-probe`) and put it beside "
                    "`bevenv` or on PATH, or pass `--probe PATH` (or set `BEVENV_PROBE`)");
}

fs::path self_executable() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path() : self;
}

std::string checked_python(const std::string& given) {
  // A bare name is looked up on PATH by the probe, as a shell would.
  if (given.find('/') == std::string::npos) return given;
  const fs::path path(given);
  if (is_executable(path) || is_executable(path / "bin/python") ||
      is_executable(path / "bin/python3"))
    return given;
  throw core::Error(core::ExitCode::bad_input,
                    "`--python " + given + "` is neither a Python interpreter nor an environment",
                    "pass the interpreter (`.venv/bin/python`) or the environment (`.venv`)");
}

std::optional<std::string> default_python() {
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    const auto prefix = util::env(variable);
    if (!prefix) continue;
    for (const char* name : {"bin/python", "bin/python3"}) {
      if (is_executable(fs::path(*prefix) / name)) return (fs::path(*prefix) / name).string();
    }
  }
  if (auto found = on_path("python3")) return found->string();
  return std::nullopt;
}

ProbeRun run_probe(const ProbeRequest& request) {
  std::vector<std::string> argv{request.probe.string(), "--timeout",
                                std::to_string(request.timeout.count())};
  if (request.python) {
    argv.push_back("--python");
    argv.push_back(*request.python);
  }
  if (!request.only.empty()) {
    std::string list;
    for (const auto& name : request.only) list += (list.empty() ? "" : ",") + name;
    argv.push_back("--only");
    argv.push_back(list);
  }
  if (request.import_torch) argv.push_back("--import-torch");
  if (request.cuda_version_override) {
    argv.push_back("--cuda-version-override");
    argv.push_back(*request.cuda_version_override);
  }
  core::ProcessOptions options;
  // Each probe has its own timeout inside bevenv-probe; this bounds all six run in a row.
  options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(request.timeout) * 7 +
                    std::chrono::seconds(10);
  const auto start = std::chrono::steady_clock::now();
  const core::ProcessResult result = core::run_process(argv, options);
  ProbeRun run;
  run.exit_code = result.exit_code;
  run.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (result.spawn_failed) {
    throw core::Error(core::ExitCode::failure, "cannot start `" + request.probe.string() + "`",
                      "check that it is executable, or pass another `--probe PATH`");
  }
  if (result.timed_out) {
    throw core::Error(core::ExitCode::failure,
                      "`bevenv-probe` did not finish within " +
                          std::to_string(options.timeout.count() / 1000) + " s and was killed",
                      "rerun with `--check NAME` to find the probe that hangs, or raise "
                      "`--probe-timeout`");
  }
  if (result.exit_code == 2) {
    throw core::Error(core::ExitCode::failure,
                      "`bevenv-probe` refused its command line: " + tail(result.err, 400),
                      "this bevenv and bevenv-probe may come from different builds");
  }
  run.report = nlohmann::json::parse(result.out, nullptr, false);
  if (run.report.is_discarded() || !run.report.is_object()) {
    std::string why = result.signal != 0 ? "was killed by signal " + std::to_string(result.signal)
                                         : "exited " + std::to_string(result.exit_code);
    throw core::Error(core::ExitCode::failure,
                      "`bevenv-probe` printed no report (it " + why + ")" +
                          (result.err.empty() ? "" : ": " + tail(result.err, 400)),
                      "run `" + request.probe.string() + "` by hand to see what it says");
  }
  require_schema(run.report, "`bevenv-probe`'s report", core::ExitCode::failure,
                 "this bevenv and bevenv-probe may come from different builds");
  return run;
}

nlohmann::json read_report(const fs::path& path) {
  const std::string hint = "save a report with `bevenv-probe > report.json` and pass that";
  const std::string text = core::read_regular_file(path, hint);
  nlohmann::json report = nlohmann::json::parse(text, nullptr, false);
  if (report.is_discarded() || !report.is_object()) {
    throw core::Error(core::ExitCode::bad_input,
                      "`" + path.string() + "` is not a bevenv-probe report (JSON object)", hint);
  }
  require_schema(report, "`" + path.string() + "`", core::ExitCode::bad_input,
                 "this is not a bevenv-probe report of schema " +
                     std::to_string(probes::kReportSchema) + "; " + hint);
  return report;
}

}  // namespace bevenv::app
