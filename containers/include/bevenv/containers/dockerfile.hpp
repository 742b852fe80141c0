#pragma once
// The Dockerfile and the files beside it, rendered as a pure function of a lockfile and options:
// equal inputs give equal bytes. Everything taken from the lockfile is checked before it reaches
// a shell line (see docs/build-image.md, "What is checked").
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bevenv/lockfiles/model.hpp"

namespace bevenv::containers {

// Paths inside the build context.
inline constexpr char kDockerfileName[] = "Dockerfile";
inline constexpr char kRequirementsName[] = "requirements.lock.txt";
// The locked packages whose files have no recorded sha256, installed first without hash checks.
inline constexpr char kUnhashedRequirementsName[] = "requirements.unhashed.txt";
inline constexpr char kRunScriptName[] = "run.sh";
inline constexpr char kProbeName[] = "bevenv-probe";
inline constexpr char kProjectDirName[] = "project";

struct ImageOptions {
  // Replaces the lock's base image (tag and digest), e.g. a mirror of a deleted CUDA tag.
  std::optional<std::string> base_image;
  bool with_probe = false;    // the context holds `bevenv-probe`
  bool with_project = false;  // the context holds the project source under `project/`
  // Where the project source goes in the image; empty: the first build's `working_dir`, else
  // `/workspace/<profile>`.
  std::string project_dir;
  std::string user = "bevenv";
  int uid = 1000;
  std::int64_t source_date_epoch = 0;  // the `created` label
  std::string lockfile_name = "bevenv.lock";
  std::string lockfile_digest;  // `sha256:<hex>` of the lockfile bytes; empty: no label
};

struct ImageFiles {
  std::string dockerfile;
  std::string requirements;  // the hash-checked pip requirements the image installs
  // The pins pip cannot hash-check (no sha256 recorded), installed before `requirements`; empty
  // when there are none.
  std::string unhashed_requirements;
  // Packages the requirements leave to a build step (compiled from source in the image).
  std::vector<std::string> built_in_image;
  // Context files `build-NAME.txt`: the hash-pinned source of each package built from an sdist.
  std::vector<std::pair<std::string, std::string>> build_requirements;
  bool hashes_required = false;  // the hash-checked install runs (with `--require-hashes`)
  // The packages in `unhashed_requirements`, in lockfile order.
  std::vector<std::string> packages_without_hashes;
  std::string base_image;    // the reference in FROM
  std::string project_dir;   // empty when no build needs the project source
  std::string python_minor;  // `3.8`
};

// Throws core::Error(bad_input) when the lockfile breaks validate() or holds text that cannot be
// written safely into a Dockerfile or shell line (the error names the field), and when a build
// runs in the project source but the context has none.
ImageFiles render_image_files(const lockfiles::Lockfile& lock, const ImageOptions& options);

// `1970-01-01T00:00:00Z` for 0.
std::string iso8601_utc(std::int64_t epoch_seconds);

}  // namespace bevenv::containers
