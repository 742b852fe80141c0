#pragma once
// `bevenv build-image`: from a lockfile to a Dockerfile, a deterministic build context, a run
// line, and (unless --dry-run) an image built with docker, podman or buildah.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/app/matrix_source.hpp"
#include "bevenv/app/output.hpp"

namespace bevenv::app {

struct BuildImageOptions {
  MatrixOptions matrix;
  std::filesystem::path lockfile = "bevenv.lock";
  std::filesystem::path output = "bevenv-image";  // directory for Dockerfile, context, run.sh
  std::optional<std::string> base_image;          // mirror or replacement of the lock's base image
  std::optional<std::filesystem::path> probe;     // bevenv-probe to copy into the image
  std::optional<std::filesystem::path> context_dir;  // project source, copied last
  std::optional<std::string> project_dir;            // where the project goes in the image
  std::optional<std::string> builder;     // docker, podman or buildah; default: first found
  std::vector<std::string> builder_args;  // extra arguments for the build command
  std::optional<std::string> tag;         // default `bevenv/<profile>:<12 hex of input hash>`
  std::optional<std::int64_t> workers;    // DataLoader workers per GPU; default: the profile's
  std::int64_t gpus = 1;                  // training processes per container
  bool ipc_host = false;                  // `--ipc=host` instead of `--shm-size`
  bool dry_run = false;                   // write files only
  bool check_inputs = true;  // re-hash the lock inputs (matrix, profile, target, bevenv.toml)
  std::optional<std::filesystem::path> project_file;  // bevenv.toml for the input check
  // Receives each build log line while the build runs (the CLI prints them to stderr).
  std::function<void(std::string_view)> on_log_line;
};

// Default DataLoader workers per GPU when the matrix profile gives none (mmdet3d configs' usual).
inline constexpr std::int64_t kDefaultWorkersPerGpu = 4;

CommandOutput build_image(const BuildImageOptions& options);

}  // namespace bevenv::app
