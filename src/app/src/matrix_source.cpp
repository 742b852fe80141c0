#include "bevenv/app/matrix_source.hpp"

#include <cstdlib>

#include "bevenv/app/doctor.hpp"
#include "bevenv/core/error.hpp"

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

std::vector<std::filesystem::path> matrix_overlays(const MatrixOptions& options) {
  std::vector<std::filesystem::path> out;
  // What `bevenv doctor --record` observed on this machine. First, so that it has the lowest
  // precedence: it should hold only `[[observed]]` records, which accumulate across layers.
  std::error_code error;
  if (const auto observed = default_observed_dir();
      !observed.empty() && std::filesystem::is_directory(observed, error)) {
    out.push_back(observed);
  }
  if (const char* env = std::getenv("BEVENV_MATRIX_PATH")) {
    const auto entries = split_matrix_path(env);
    out.insert(out.end(), entries.begin(), entries.end());
  }
  out.insert(out.end(), options.overlays.begin(), options.overlays.end());
  return out;
}

matrix::Matrix load_matrix_or_throw(const MatrixOptions& options) {
  matrix::LoadOptions load_options;
  load_options.overlays = matrix_overlays(options);
  load_options.known_packages_only = options.known_packages_only;
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

}  // namespace bevenv::app
