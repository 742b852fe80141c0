#pragma once
// Internal to `bevenv sync`: the interpreter for a new venv, and the installer's argument
// vectors (never a shell line: lock text reaches pip only as argv elements or file content).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/sync.hpp"

namespace bevenv::app::sync_detail {

// `3.8` of `3.8.18`.
std::string python_minor(const std::string& version);

// A Python `minor` interpreter: `requested` when it is a path, else the newest
// `$PYENV_ROOT/versions/<minor>.*/bin/python<minor>` (then ~/.pyenv, /root/.pyenv), else
// `python<minor>` on PATH outside pyenv's shims. Throws core::Error(bad_input) with a hint.
std::filesystem::path find_interpreter(const std::optional<std::string>& requested,
                                       const std::string& lock_python);

// Runs `python -m venv PATH`; throws core::Error(failure) with its stderr.
void create_venv(const std::filesystem::path& python, const std::filesystem::path& venv);

struct Tool {
  Installer installer = Installer::pip;
  std::filesystem::path python;  // the venv's interpreter
};

// `python -m pip install --no-deps ARGS` or `uv pip install --python PY --no-deps ARGS`.
std::vector<std::string> install_argv(const Tool& tool, const std::vector<std::string>& args);
// `python -m pip uninstall -y NAMES` or `uv pip uninstall --python PY NAMES`.
std::vector<std::string> uninstall_argv(const Tool& tool, const std::vector<std::string>& names);

// Runs one installer command; throws core::Error(failure) naming `what` with the stderr tail.
void run_installer(const std::vector<std::string>& argv, const std::string& what,
                   const std::map<std::string, std::string>& env = {});

}  // namespace bevenv::app::sync_detail
