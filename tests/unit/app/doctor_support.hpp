#pragma once
// Shared by the doctor tests: recorded reports, small lockfiles, temp dirs, real commands.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/app/doctor.hpp"
#include "bevenv/lockfiles/model.hpp"
#include "bevenv/matrix/model.hpp"
#include "bevenv/util/text.hpp"

namespace bevenv::app::test {

// The report bevenv-probe printed on a 2 x H200 host (tests/unit/probes/data).
nlohmann::json h200_report();
const matrix::Matrix& embedded_matrix();
// The embedded matrix with one overlay file `path` holding `toml` on top; the test stops where
// it does not load.
matrix::Matrix embedded_with_overlay(const std::string& path, const std::string& toml);
// A fresh directory under /tmp, removed by nobody (ctest runs are short-lived).
std::filesystem::path temp_dir(const std::string& name);
// A valid lockfile for `python` with these `name==version` pins (PyPI sources).
lockfiles::Lockfile small_lock(const std::string& python,
                               const std::vector<std::pair<std::string, std::string>>& pins);
std::filesystem::path write_lock(const std::filesystem::path& dir, const lockfiles::Lockfile& lock);
std::string venv_python(const std::string& venv);  // BEVENV_PROBE_VENVS/<venv>/bin/python
// What the venv's Python prints running `code`, without the line end; the test stops where it
// fails.
std::string venv_python_output(const std::string& venv, const std::string& code);
// Runs a shell command; returns stdout+stderr together, and the exit status.
std::string run_shell(const std::string& command, int* exit_code = nullptr);
// The tests' name for bevenv's own sh quoting.
inline std::string shell_quote(std::string_view text) { return util::sh_single_quoted(text); }

// The findings with this check id.
std::vector<probes::Finding> with_id(const std::vector<probes::Finding>& findings,
                                     const std::string& id);

// Sets an environment variable for the scope; restores the old value after.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace bevenv::app::test
