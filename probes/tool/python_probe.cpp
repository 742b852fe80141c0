// Runs the embedded probe_env.py in the target interpreter, in its own process group with a
// timeout, and returns the JSON it prints.
#include <unistd.h>

#include <sstream>
#include <variant>

#include "dynlib.hpp"
#include "isolation.hpp"
#include "probe_tool.hpp"

namespace bevenv::probe_tool {

extern const char* const kProbeEnvScript;

namespace {

bool is_executable_file(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

struct Interpreter {
  std::string path;
  std::string source;  // which rule found it: --python, VIRTUAL_ENV, CONDA_PREFIX, PATH
};

std::optional<Interpreter> from_prefix(const std::string& prefix, const std::string& source) {
  for (const char* name : {"/bin/python", "/bin/python3"}) {
    if (is_executable_file(prefix + name)) return Interpreter{prefix + name, source};
  }
  return std::nullopt;
}

std::variant<Interpreter, json> find_interpreter(const Options& options) {
  if (options.python) {
    const std::string& given = *options.python;
    if (auto found = from_prefix(given, "--python")) return *found;
    if (given.find('/') == std::string::npos || is_executable_file(given)) {
      return Interpreter{given, "--python"};
    }
    return json{{"status", "missing"},
                {"error", "`" + given + "` is neither a Python interpreter nor an environment"}};
  }
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    const std::string prefix = env_or_empty(variable);
    if (prefix.empty()) continue;
    if (auto found = from_prefix(prefix, variable)) return *found;
  }
  std::stringstream path(env_or_empty("PATH"));
  std::vector<std::string> dirs;
  for (std::string dir; std::getline(path, dir, ':');) dirs.push_back(dir);
  for (const char* name : {"python3", "python"}) {
    for (const auto& dir : dirs) {
      if (!dir.empty() && is_executable_file(dir + "/" + name)) {
        return Interpreter{dir + "/" + name, "PATH"};
      }
    }
  }
  return json{{"status", "missing"}, {"error", "no `python3` on PATH; pass --python"}};
}

std::string tail(const std::string& text, std::size_t size) {
  return text.size() <= size ? text : text.substr(text.size() - size);
}

json run_script(const Options& options, const std::vector<std::string>& extra_args) {
  auto found = find_interpreter(options);
  if (auto* missing = std::get_if<json>(&found)) return *missing;
  const auto& interpreter = std::get<Interpreter>(found);
  std::vector<std::string> argv{interpreter.path, "-c", kProbeEnvScript, "--timeout",
                                std::to_string(options.timeout.count() / 1000)};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  const auto start = std::chrono::steady_clock::now();
  const ProgramResult result = run_program(argv, options.timeout);
  json out;
  if (result.spawn_failed) {
    out = {{"status", "missing"}, {"error", "cannot run `" + interpreter.path + "`"}};
  } else if (result.timed_out) {
    out = {{"status", "timeout"},
           {"error", "the Python probe did not finish within " +
                         std::to_string(options.timeout.count() / 1000) + " s and was killed"},
           {"stderr_tail", tail(result.err, 2000)}};
  } else {
    out = json::parse(result.out, nullptr, false);
    if (out.is_discarded() || !out.is_object()) {
      out = {{"status", result.signal != 0 ? "crashed" : "error"},
             {"error",
              "the Python probe printed no report (exit " + std::to_string(result.exit_code) + ")"},
             {"stderr_tail", tail(result.err, 2000)}};
      if (result.signal != 0) out["signal_name"] = signal_name(result.signal);
    }
  }
  out["interpreter_path"] = interpreter.path;
  out["interpreter_source"] = interpreter.source;
  out["duration_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

json probe_python(const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  json out = run_script(options, options.import_torch ? std::vector<std::string>{"--import-torch"}
                                                      : std::vector<std::string>{});
  if (out.value("status", "") != "ok") return out;
  add_fatbin_archs(out);
  add_torch_libraries(out);
  // The fatbin and library walks are part of this probe's time.
  out["duration_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

json python_library_dirs(const Options& options) { return run_script(options, {"--paths-only"}); }

}  // namespace bevenv::probe_tool
