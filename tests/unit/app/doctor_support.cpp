#include "doctor_support.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bevenv/core/sha256.hpp"
#include "bevenv/lockfiles/writer.hpp"
#include "bevenv/matrix/loader.hpp"

namespace bevenv::app::test {

nlohmann::json h200_report() {
  std::ifstream in(BEVENV_H200_REPORT);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

const matrix::Matrix& embedded_matrix() {
  static const matrix::Matrix matrix = [] {
    auto loaded = matrix::load_embedded();
    REQUIRE(loaded.has_value());
    return loaded.value();
  }();
  return matrix;
}

matrix::Matrix embedded_with_overlay(const std::string& path, const std::string& toml) {
  std::vector<matrix::SourceFile> files = matrix::embedded_files();
  files.push_back({path, toml, 1, matrix::Layer::overlay});
  auto loaded = matrix::load_sources(files);
  REQUIRE(loaded.has_value());
  return std::move(loaded.value());
}

std::filesystem::path temp_dir(const std::string& name) {
  std::string pattern = "/tmp/bevenv-doctor-" + name + "-XXXXXX";
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

lockfiles::Lockfile small_lock(const std::string& python,
                               const std::vector<std::pair<std::string, std::string>>& pins) {
  lockfiles::Lockfile lock;
  lock.generator = "bevenv 0.1.0";
  lock.matrix_version = "test";
  lock.input_hash = "sha256:" + core::sha256_hex("doctor test");
  lock.target.python = python;
  lock.target.platform = "linux_x86_64";
  for (const auto& [name, version] : pins) {
    lockfiles::Package package;
    package.name = name;
    package.version = version;
    package.source = {lockfiles::SourceKind::pypi, "https://pypi.org/simple"};
    package.why = {{lockfiles::ReasonKind::requested, "test pin", {}, {}, {}}};
    lock.packages.push_back(package);
  }
  lockfiles::canonicalize(lock);
  return lock;
}

std::filesystem::path write_lock(const std::filesystem::path& dir,
                                 const lockfiles::Lockfile& lock) {
  const auto path = dir / "bevenv.lock";
  lockfiles::write_lockfile(path, lock);
  return path;
}

std::string venv_python(const std::string& venv) {
  return std::string(BEVENV_PROBE_VENVS) + "/" + venv + "/bin/python";
}

std::string venv_python_output(const std::string& venv, const std::string& code) {
  int exit_code = -1;
  std::string out =
      run_shell(shell_quote(venv_python(venv)) + " -c " + shell_quote(code), &exit_code);
  REQUIRE(exit_code == 0);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string run_shell(const std::string& command, int* exit_code) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = ::pclose(pipe);
  if (exit_code != nullptr) *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

std::vector<probes::Finding> with_id(const std::vector<probes::Finding>& findings,
                                     const std::string& id) {
  std::vector<probes::Finding> out;
  for (const auto& finding : findings) {
    if (finding.check == id) out.push_back(finding);
  }
  return out;
}

ScopedEnv::ScopedEnv(std::string name, const std::optional<std::string>& value)
    : name_(std::move(name)) {
  if (const char* old = std::getenv(name_.c_str())) old_ = old;
  if (value) {
    ::setenv(name_.c_str(), value->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

ScopedEnv::~ScopedEnv() {
  if (old_) {
    ::setenv(name_.c_str(), old_->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

}  // namespace bevenv::app::test
