#include "bevenv/app/matrix_source.hpp"

#include <algorithm>
#include <cstdlib>

#include "bevenv/app/doctor.hpp"
#include "bevenv/core/closest.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/util/env.hpp"

namespace bevenv::app {

std::vector<std::filesystem::path> split_matrix_path(std::string_view value) {
  std::vector<std::filesystem::path> out;
  while (!value.empty()) {
    const auto colon = value.find(':');
    const std::string_view entry = value.substr(0, colon);
    if (!entry.empty()) out.emplace_back(std::string(entry));
    if (colon == std::string_view::npos) break;
    value.remove_prefix(colon + 1);
  }
  return out;
}

namespace {

// A directory named twice (the observed directory given again to `matrix check`, an entry of
// both `BEVENV_MATRIX_PATH` and `--matrix`) is read once, where it comes last: its place of
// highest precedence. Read twice, its records would count twice.
std::vector<std::filesystem::path> without_repeats(std::vector<std::filesystem::path> dirs) {
  std::vector<std::filesystem::path> out;
  std::vector<std::filesystem::path> seen;
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    std::error_code error;
    auto key = std::filesystem::weakly_canonical(*it, error);
    if (error) key = *it;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    out.insert(out.begin(), *it);
  }
  return out;
}

}  // namespace

std::vector<std::filesystem::path> matrix_overlays(const MatrixOptions& options) {
  std::vector<std::filesystem::path> out;
  // What `bevenv doctor --record` observed on this machine. First, so that it has the lowest
  // precedence: it should hold only `[[observed]]` records, which accumulate across layers.
  std::error_code error;
  if (const auto observed = default_observed_dir();
      !observed.empty() && std::filesystem::is_directory(observed, error)) {
    out.push_back(observed);
  }
  if (const auto env = util::env("BEVENV_MATRIX_PATH")) {
    const auto entries = split_matrix_path(*env);
    out.insert(out.end(), entries.begin(), entries.end());
  }
  out.insert(out.end(), options.overlays.begin(), options.overlays.end());
  return without_repeats(std::move(out));
}

matrix::Matrix load_matrix_or_throw(const MatrixOptions& options) {
  matrix::LoadOptions load_options;
  load_options.overlays = matrix_overlays(options);
  load_options.known_packages_only = options.known_packages_only;
  load_options.without_generated_releases = options.without_generated_releases;
  auto result = matrix::load(load_options);
  if (result) return std::move(result).value();
  std::vector<std::string> causes;
  for (const auto& diagnostic : result.error()) causes.push_back(diagnostic.to_string());
  const std::size_t count = causes.size();
  throw core::Error(
      core::ExitCode::bad_input,
      "the compatibility matrix has " + std::to_string(count) + (count == 1 ? " error" : " errors"),
      "fix the files named below, or leave out the `--matrix` directory or "
      "`BEVENV_MATRIX_PATH` entry that holds them; `bevenv matrix check` lists them",
      std::move(causes));
}

const matrix::Profile& profile_or_throw(const matrix::Matrix& matrix, const std::string& name) {
  if (const matrix::Profile* profile = matrix.find_profile(name)) return *profile;
  std::vector<std::string> names;
  for (const auto& [known, profile] : matrix.profiles) names.push_back(known);
  const std::string suggestion = core::closest(name, names);
  std::string list;
  for (const auto& known : names) list += (list.empty() ? "`" : ", `") + known + "`";
  throw core::Error(core::ExitCode::bad_input, "unknown profile `" + name + "`",
                    suggestion.empty() ? "profiles in the matrix: " + list
                                       : "did you mean `" + suggestion + "`? (profiles: " + list +
                                             "; details: `bevenv matrix profiles`)");
}

}  // namespace bevenv::app
