#pragma once
// Image builders: docker (with a reachable engine), podman and buildah.
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bevenv::containers {

enum class BuilderKind { docker, podman, buildah };
std::string_view builder_name(BuilderKind kind);
std::optional<BuilderKind> builder_from_name(std::string_view name);

struct BuilderStatus {
  BuilderKind kind = BuilderKind::docker;
  bool available = false;
  std::string detail;  // version, or why it cannot be used (`docker info` failed: ...)
};

// Checks docker, podman and buildah in that order (docker counts only when `docker info`
// succeeds, i.e. an engine answers).
std::vector<BuilderStatus> detect_builders();
BuilderStatus check_builder(BuilderKind kind);

struct BuildRequest {
  BuilderKind builder = BuilderKind::docker;
  std::filesystem::path context_dir;    // holds the Dockerfile
  std::string tag;                      // image name to give the result
  std::vector<std::string> extra_args;  // appended to the build command (`--pull=never`)
};

// argv of the build (`docker build ...`, `buildah bud ...`).
std::vector<std::string> build_command(const BuildRequest& request);

struct BuildOutcome {
  int exit_code = -1;
  bool spawn_failed = false;
  std::string failing_step;             // `STEP 4/9: RUN pip install ...`; empty when unknown
  std::vector<std::string> last_lines;  // the log's tail
  std::chrono::milliseconds elapsed{0};
  bool ok() const { return !spawn_failed && exit_code == 0; }
};

// Runs the build, handing each log line to `on_line` as it arrives.
BuildOutcome run_build(const BuildRequest& request,
                       const std::function<void(std::string_view)>& on_line);

// Follows a build log and remembers the step that ran last (what failed when the build fails).
class StepTracker {
 public:
  void feed(std::string_view line);
  const std::string& current_step() const { return step_; }

 private:
  std::string step_;
};

}  // namespace bevenv::containers
