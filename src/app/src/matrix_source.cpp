#include "bevenv/app/matrix_source.hpp"

#include <algorithm>
#include <cstdlib>

#include "bevenv/app/doctor.hpp"
#include "bevenv/core/closest.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
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
  load_options.without_stood_for = options.without_stood_for;
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

namespace {

// The known name that shares the longest start with `wanted` (3 characters at least): a name
// typed short, `nuscenes` for `nuscenes-devkit`, is too many edits away to be a typo.
std::string longest_shared_start(const std::string& wanted, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_length = 2;
  for (const auto& known : names) {
    const auto differ = std::mismatch(known.begin(), known.end(), wanted.begin(), wanted.end());
    const auto length = static_cast<std::size_t>(differ.first - known.begin());
    if (length > best_length) {
      best = known;
      best_length = length;
    }
  }
  return best;
}

// The shortest known name that `wanted` begins, whole words of it: `opencv` -> `opencv-python`.
std::string first_words_of(const std::string& wanted, const std::vector<std::string>& names) {
  std::string best;
  for (const auto& known : names) {
    if (known.size() > wanted.size() && known.starts_with(wanted) && known[wanted.size()] == '-' &&
        (best.empty() || known.size() < best.size()))
      best = known;
  }
  return best;
}

}  // namespace

std::string package_meant(const matrix::Matrix& matrix, std::string_view name) {
  const std::string wanted = core::normalize_name(name);
  std::vector<std::string> names;
  for (const auto& [known, package] : matrix.packages) names.push_back(known);
  // The first words of a name (`opencv` for `opencv-python`), else a typo (`scikitlearn`), else a
  // name typed short.
  std::string best = first_words_of(wanted, names);
  if (best.empty()) best = core::closest(wanted, names);
  if (best.empty()) best = longest_shared_start(wanted, names);
  return best;
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
