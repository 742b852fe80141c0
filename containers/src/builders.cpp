#include <chrono>
#include <deque>
#include <regex>

#include "bevenv/containers/builder.hpp"
#include "bevenv/containers/dockerfile.hpp"
#include "bevenv/core/subprocess.hpp"
#include "bevenv/util/enum_words.hpp"
#include "stream_process.hpp"

namespace bevenv::containers {
namespace {

constexpr std::size_t kTailLines = 30;

constexpr util::EnumWord<BuilderKind> kBuilderNames[] = {{BuilderKind::docker, "docker"},
                                                         {BuilderKind::podman, "podman"},
                                                         {BuilderKind::buildah, "buildah"}};

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  std::string line = text.substr(0, end);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

}  // namespace

std::string_view builder_name(BuilderKind kind) {
  return util::word_of(kBuilderNames, kind, "docker");
}

std::optional<BuilderKind> builder_from_name(std::string_view name) {
  return util::value_of(kBuilderNames, name);
}

BuilderStatus check_builder(BuilderKind kind) {
  BuilderStatus status;
  status.kind = kind;
  const std::string name(builder_name(kind));
  core::ProcessOptions options;
  options.timeout = std::chrono::seconds(20);
  // docker counts only with an engine that answers; podman and buildah need no daemon.
  std::vector<std::string> argv;
  if (kind == BuilderKind::docker) {
    argv = {name, "info", "--format", "{{.ServerVersion}}"};
  } else {
    argv = {name, "--version"};
  }
  const core::ProcessResult result = core::run_process(argv, options);
  if (result.spawn_failed) {
    status.detail = "`" + name + "` is not installed";
  } else if (result.timed_out) {
    status.detail = "`" + name + " " + argv[1] + "` did not answer within 20 s";
  } else if (result.exit_code != 0) {
    const std::string why = first_line(result.err.empty() ? result.out : result.err);
    status.detail = "`" + name + " " + argv[1] + "` failed" + (why.empty() ? "" : ": " + why);
  } else {
    status.available = true;
    status.detail = first_line(result.out);
  }
  return status;
}

std::vector<BuilderStatus> detect_builders() {
  std::vector<BuilderStatus> out;
  for (auto kind : {BuilderKind::docker, BuilderKind::podman, BuilderKind::buildah}) {
    out.push_back(check_builder(kind));
  }
  return out;
}

std::vector<std::string> build_command(const BuildRequest& request) {
  const std::string dockerfile = (request.context_dir / kDockerfileName).string();
  std::vector<std::string> argv;
  switch (request.builder) {
    case BuilderKind::docker:
      argv = {"docker", "build", "--progress=plain"};
      break;
    case BuilderKind::podman:
      // The OCI format has no SHELL; the docker format keeps `-o pipefail` on every RUN.
      argv = {"podman", "build", "--layers", "--format=docker"};
      break;
    case BuilderKind::buildah:
      // `--layers` keeps one cached layer per instruction, as docker and podman do.
      argv = {"buildah", "bud", "--layers", "--format=docker"};
      break;
  }
  argv.insert(argv.end(), {"-f", dockerfile, "-t", request.tag});
  argv.insert(argv.end(), request.extra_args.begin(), request.extra_args.end());
  argv.push_back(request.context_dir.string());
  return argv;
}

void StepTracker::feed(std::string_view line) {
  // buildah/podman: `STEP 4/9: RUN ...`; BuildKit: `#7 [4/9] RUN ...`; classic docker:
  // `Step 4/9 : RUN ...`.
  static const std::regex buildah_step(R"(^STEP [0-9]+(/[0-9]+)?: .*)");
  static const std::regex buildkit_step(R"(^#[0-9]+ (\[[^\]]*[0-9]+/[0-9]+\] .*))");
  static const std::regex classic_step(R"(^Step [0-9]+/[0-9]+ : .*)");
  std::match_results<std::string_view::const_iterator> match;
  if (std::regex_match(line.begin(), line.end(), buildah_step) ||
      std::regex_match(line.begin(), line.end(), classic_step)) {
    step_ = std::string(line);
  } else if (std::regex_match(line.begin(), line.end(), match, buildkit_step)) {
    step_ = match[1].str();
  }
}

BuildOutcome run_build(const BuildRequest& request,
                       const std::function<void(std::string_view)>& on_line) {
  BuildOutcome outcome;
  StepTracker tracker;
  std::deque<std::string> tail;
  std::map<std::string, std::string> env;
  if (request.builder == BuilderKind::docker) env["DOCKER_BUILDKIT"] = "1";
  const auto start = std::chrono::steady_clock::now();
  const auto result =
      detail::run_streaming(build_command(request), env, [&](std::string_view line) {
        tracker.feed(line);
        tail.emplace_back(line);
        if (tail.size() > kTailLines) tail.pop_front();
        if (on_line) on_line(line);
      });
  outcome.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  outcome.exit_code = result.exit_code;
  outcome.spawn_failed = result.spawn_failed;
  if (result.spawn_failed) tail.push_back(result.spawn_error);
  outcome.failing_step = tracker.current_step();
  outcome.last_lines.assign(tail.begin(), tail.end());
  return outcome;
}

}  // namespace bevenv::containers
