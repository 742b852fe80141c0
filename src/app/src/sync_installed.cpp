// What a venv holds, read from its files: `pyvenv.cfg` and the `*.dist-info` / `*.egg-info`
// metadata in site-packages. No Python is started, so a broken interpreter cannot hide drift.
#include <algorithm>
#include <fstream>

#include "bevenv/app/sync.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/util/text.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;

// `Name:` and `Version:` of a core-metadata file; the headers end at the first empty line.
std::optional<InstalledDist> read_metadata(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  InstalledDist dist;
  for (std::string line; std::getline(in, line) && !util::trim(line).empty();) {
    if (line.starts_with("Name:")) dist.name = std::string(util::trim(line.substr(5)));
    if (line.starts_with("Version:")) dist.version = std::string(util::trim(line.substr(8)));
  }
  if (dist.name.empty() || dist.version.empty()) return std::nullopt;
  return dist;
}

// The metadata file of one entry of site-packages, or empty when it is no distribution.
fs::path metadata_file(const fs::directory_entry& entry) {
  const fs::path path = entry.path();
  std::error_code error;
  if (path.extension() == ".dist-info" && entry.is_directory(error)) return path / "METADATA";
  if (path.extension() != ".egg-info") return {};
  // setuptools writes a directory holding PKG-INFO, older distutils a single PKG-INFO file.
  return entry.is_directory(error) ? path / "PKG-INFO" : path;
}

}  // namespace

fs::path site_packages_of(const fs::path& venv) {
  std::error_code error;
  if (!fs::is_regular_file(venv / "pyvenv.cfg", error)) {
    throw core::Error(core::ExitCode::bad_input,
                      "`" + venv.string() + "` is not a virtual environment (no `pyvenv.cfg`)",
                      "pass a venv made by `python -m venv`, or a path that does not exist yet "
                      "(sync creates it)");
  }
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(venv / "lib", error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("python") && fs::is_directory(entry.path() / "site-packages", error))
      found.push_back(entry.path() / "site-packages");
  }
  if (found.size() != 1) {
    throw core::Error(core::ExitCode::bad_input,
                      "`" + venv.string() + "` has " + std::to_string(found.size()) +
                          " `lib/python*/site-packages` directories; expected one",
                      "recreate the venv with the lock's Python");
  }
  return found.front();
}

std::string venv_python_version(const fs::path& venv) {
  std::ifstream in(venv / "pyvenv.cfg");
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key(util::trim(line.substr(0, eq)));
    // `version` (venv before 3.11) or `version_info` (3.11 and later).
    if (key == "version" || key == "version_info") return std::string(util::trim(line.substr(eq + 1)));
  }
  return "";
}

std::vector<InstalledDist> read_installed(const fs::path& site_packages) {
  std::vector<InstalledDist> out;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(site_packages, error)) {
    const fs::path file = metadata_file(entry);
    if (file.empty()) continue;
    if (auto dist = read_metadata(file)) out.push_back(std::move(*dist));
  }
  std::sort(out.begin(), out.end(), [](const InstalledDist& a, const InstalledDist& b) {
    return core::normalize_name(a.name) < core::normalize_name(b.name);
  });
  return out;
}

}  // namespace bevenv::app
