#pragma once
// What the Dockerfile will do, worked out from a lockfile and checked: which packages pip
// installs, which are compiled in the image, which builds need the project source.
#include <string>
#include <vector>

#include "bevenv/containers/dockerfile.hpp"
#include "bevenv/lockfiles/model.hpp"

namespace bevenv::containers::detail {

struct PlannedBuild {
  lockfiles::BuildStep step;
  std::string workdir;         // absolute, checked
  std::string source_package;  // dependency builds: the package whose sdist is unpacked first
  std::string source_version;
  std::string source_option;  // where pip downloads that sdist: `--no-index --find-links URL`...
  // Builds with a `source` or `vcs`: the context file (`build-NAME.txt`) holding the one
  // requirement (`URL --hash=sha256:...`, or `NAME @ git+...@COMMIT`) pip installs; the URL
  // stays out of the shell.
  std::string requirement_file;
  std::string requirement_text;
};

struct ImagePlan {
  std::string base_image;
  std::string python_minor;
  lockfiles::Lockfile installable;  // the lockfile less the packages built in the image
  std::vector<std::string> built_in_image;
  std::vector<PlannedBuild> dependency_builds;  // run before the project source is copied
  std::vector<PlannedBuild> project_builds;     // run in the project source
  std::string project_dir;                      // empty: no project source in the image
  // `--no-index`, `--index-url URL` or empty (PyPI): for the hash-checked install, and for the
  // install of the packages without a recorded sha256 that runs before it.
  std::string pip_index_option;
  std::string unhashed_index_option;
};

// Validates the lockfile and everything that will reach the Dockerfile; throws
// core::Error(bad_input) naming the field.
ImagePlan plan_image(const lockfiles::Lockfile& lock, const ImageOptions& options);

}  // namespace bevenv::containers::detail
