// Interpreters, venv creation and installer commands for `bevenv sync`.
#include "sync_venv.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "bevenv/core/error.hpp"
#include "bevenv/core/subprocess.hpp"
#include "bevenv/core/version.hpp"
#include "bevenv/util/env.hpp"

namespace bevenv::app::sync_detail {
namespace {

namespace fs = std::filesystem;
using core::Error;
using core::ExitCode;

bool is_executable(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

std::vector<fs::path> pyenv_roots() {
  std::vector<fs::path> roots;
  if (const auto root = util::env("PYENV_ROOT")) roots.emplace_back(fs::path(*root) / "versions");
  if (const auto home = util::env("HOME")) {
    roots.emplace_back(fs::path(*home) / ".pyenv" / "versions");
  }
  roots.emplace_back("/root/.pyenv/versions");
  return roots;
}

// The newest `<minor>.N` under one pyenv root that has `bin/python<minor>`.
std::optional<fs::path> newest_in(const fs::path& root, const std::string& minor) {
  std::optional<core::Version> best_version;
  std::optional<fs::path> best;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(minor + ".")) continue;
    const auto version = core::Version::parse(name);
    const fs::path python = entry.path() / "bin" / ("python" + minor);
    if (!version || !is_executable(python)) continue;
    if (best_version && !(*best_version < version.value())) continue;
    best_version = version.value();
    best = python;
  }
  return best;
}

std::optional<fs::path> on_path(const std::string& name) {
  const auto path = util::env("PATH");
  if (!path) return std::nullopt;
  std::stringstream dirs(*path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    // A pyenv shim runs whatever `pyenv local` says, not necessarily this minor.
    if (dir.empty() || dir.ends_with("/shims")) continue;
    if (is_executable(fs::path(dir) / name)) return fs::path(dir) / name;
  }
  return std::nullopt;
}

std::string tail_lines(const std::string& text, std::size_t count) {
  std::size_t start = text.size();
  for (std::size_t seen = 0; start > 0 && seen <= count;) {
    if (text[--start] == '\n') ++seen;
  }
  return text.substr(start == 0 ? 0 : start + 1);
}

}  // namespace

std::string python_minor(const std::string& version) {
  const auto first = version.find('.');
  if (first == std::string::npos) return version;
  const auto second = version.find('.', first + 1);
  return second == std::string::npos ? version : version.substr(0, second);
}

fs::path find_interpreter(const std::optional<std::string>& requested,
                          const std::string& lock_python) {
  if (requested && requested->find('/') != std::string::npos) {
    if (is_executable(*requested)) return *requested;
    throw Error(ExitCode::bad_input, "`--python " + *requested + "` is not an executable file",
                "pass the path of a Python interpreter, or a version such as `3.8`");
  }
  const std::string minor = python_minor(requested ? *requested : lock_python);
  for (const fs::path& root : pyenv_roots())
    if (auto found = newest_in(root, minor)) return *found;
  if (auto found = on_path("python" + minor)) return *found;
  throw Error(ExitCode::bad_input,
              "no Python " + minor + " interpreter to create the venv with (the lock is for " +
                  "Python " + lock_python + ")",
              "install one (`pyenv install " + minor + "`), or pass `--python /path/to/python" +
                  minor + "`");
}

void create_venv(const fs::path& python, const fs::path& venv) {
  core::ProcessOptions options;
  options.timeout = std::chrono::minutes(5);
  const auto result = core::run_process({python.string(), "-m", "venv", venv.string()}, options);
  if (result.exit_code == 0 && !result.timed_out) return;
  throw Error(ExitCode::failure,
              "`" + python.string() + " -m venv " + venv.string() + "` failed (exit " +
                  std::to_string(result.exit_code) + ")",
              "check that the interpreter has the `venv` module (Debian: `python3-venv`)",
              {tail_lines(result.err, 10)});
}

std::vector<std::string> install_argv(const Tool& tool, const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  if (tool.installer == Installer::uv)
    argv = {"uv", "pip", "install", "--python", tool.python.string(), "--no-deps"};
  else
    argv = {tool.python.string(), "-m",      "pip",      "--disable-pip-version-check",
            "--no-input",         "install", "--no-deps"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<std::string> uninstall_argv(const Tool& tool, const std::vector<std::string>& names) {
  std::vector<std::string> argv;
  if (tool.installer == Installer::uv)
    argv = {"uv", "pip", "uninstall", "--python", tool.python.string()};
  else
    argv = {tool.python.string(), "-m", "pip", "--disable-pip-version-check", "uninstall", "-y"};
  argv.insert(argv.end(), names.begin(), names.end());
  return argv;
}

void run_installer(const std::vector<std::string>& argv, const std::string& what,
                   const std::map<std::string, std::string>& env) {
  core::ProcessOptions options;
  options.timeout = std::chrono::hours(2);  // a few GB of wheels, or a CUDA extension build
  options.extra_env = env;
  const auto result = core::run_process(argv, options);
  if (result.exit_code == 0 && !result.timed_out && result.signal == 0) return;
  std::string status = result.spawn_failed ? "could not start `" + argv.front() + "`"
                       : result.timed_out  ? "timed out"
                                           : "exit " + std::to_string(result.exit_code);
  throw Error(ExitCode::failure, what + " failed (" + status + ")",
              result.spawn_failed && argv.front() == "uv"
                  ? "install uv, or sync with `--installer pip`"
                  : "the installer's last lines are above; fix the cause and run `bevenv sync` "
                    "again (it picks up where it stopped)",
              {tail_lines(result.err.empty() ? result.out : result.err, 15)});
}

}  // namespace bevenv::app::sync_detail
