#include "bevenv/app/build_image.hpp"

#include <unistd.h>

#include "bevenv/containers/builder.hpp"
#include "bevenv/containers/context.hpp"
#include "bevenv/containers/dockerfile.hpp"
#include "bevenv/containers/run_line.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/sha256.hpp"
#include "build_image_checks.hpp"
#include "build_image_output.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;
using core::Error;
using core::ExitCode;
using namespace bevenv::containers;

constexpr const char* kContextName = "context.tar";

// The probe beside the running bevenv, where the release bundle puts it.
std::optional<fs::path> default_probe() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  const fs::path probe = self.parent_path() / kProbeName;
  if (fs::is_regular_file(probe, error)) return probe;
  return std::nullopt;
}

std::string default_tag(const lockfiles::Lockfile& lock) {
  const std::string name = lock.profile.empty() ? "environment" : lock.profile;
  return "bevenv/" + name + ":" + lock.input_hash.substr(lock.input_hash.find(':') + 1, 12);
}

BuilderStatus choose_builder(const BuildImageOptions& options) {
  if (options.builder) {
    const auto kind = builder_from_name(*options.builder);
    if (!kind) {
      throw Error(ExitCode::bad_input, "unknown builder `" + *options.builder + "`",
                  "use `docker`, `podman` or `buildah`");
    }
    BuilderStatus status = check_builder(*kind);
    if (!status.available) {
      throw Error(ExitCode::failure,
                  "cannot build with `" + *options.builder + "`: " + status.detail,
                  "install it, choose another `--builder`, or use `--dry-run` and build elsewhere");
    }
    return status;
  }
  std::vector<std::string> reasons;
  for (const auto& status : detect_builders()) {
    if (status.available) return status;
    reasons.push_back(std::string(builder_name(status.kind)) + ": " + status.detail);
  }
  throw Error(ExitCode::failure, "no image builder found",
              "install docker (with a running engine), podman or buildah, or use `--dry-run` to "
              "write the Dockerfile and context only",
              reasons);
}

std::vector<ContextEntry> context_entries(const ImageFiles& files, const std::string& run_script,
                                          const BuildImageOptions& options,
                                          const std::optional<fs::path>& probe) {
  std::vector<ContextEntry> entries;
  entries.push_back({kDockerfileName, ContextEntry::Kind::file, false, files.dockerfile, {}, {}});
  entries.push_back(
      {kRequirementsName, ContextEntry::Kind::file, false, files.requirements, {}, {}});
  if (const std::string& text = files.unhashed_requirements; !text.empty())
    entries.push_back({kUnhashedRequirementsName, ContextEntry::Kind::file, false, text, {}, {}});
  entries.push_back({kRunScriptName, ContextEntry::Kind::file, true, run_script, {}, {}});
  for (const auto& [name, text] : files.build_requirements)
    entries.push_back({name, ContextEntry::Kind::file, false, text, {}, {}});
  if (probe) entries.push_back({kProbeName, ContextEntry::Kind::file, true, {}, *probe, {}});
  if (options.context_dir) add_directory_tree(entries, *options.context_dir, kProjectDirName);
  return entries;
}

std::string seconds_text(std::chrono::milliseconds elapsed) {
  return std::to_string((elapsed.count() + 500) / 1000) + " s";
}

// The build: the context extracted where the builder reads it, its log streamed.
void run_image_build(const BuildImageOptions& options, const std::string& tar,
                     const std::string& tag, CommandOutput& out) {
  const BuilderStatus builder = choose_builder(options);
  detail::TempDir context("bevenv-context");
  extract_context_tar(tar, context.path());
  BuildRequest request;
  request.builder = builder.kind;
  request.context_dir = context.path();
  request.tag = tag;
  request.extra_args = options.builder_args;
  const BuildOutcome outcome = run_build(request, options.on_log_line);
  if (!outcome.ok()) {
    std::vector<std::string> causes = outcome.last_lines;
    throw Error(ExitCode::failure,
                outcome.spawn_failed
                    ? "`" + std::string(builder_name(builder.kind)) + "` could not be started"
                    : "the image build failed" +
                          (outcome.failing_step.empty() ? std::string()
                                                        : " at `" + outcome.failing_step + "`") +
                          " (exit " + std::to_string(outcome.exit_code) + "); its last lines:",
                "the full log is above; fix the step, or rerun with `--dry-run` and build `" +
                    options.output.string() + "` by hand",
                causes);
  }
  out.json["builder"] = builder_name(builder.kind);
  out.json["build_seconds"] = static_cast<double>(outcome.elapsed.count()) / 1000.0;
  out.add("Built `" + tag + "` with " + std::string(builder_name(builder.kind)) + " in " +
              seconds_text(outcome.elapsed),
          Mark::ok);
}

// The probe the image carries: `--probe`, else the one beside bevenv; none is no error.
std::optional<fs::path> image_probe(const BuildImageOptions& options) {
  if (options.probe && !fs::is_regular_file(*options.probe)) {
    throw Error(
        ExitCode::bad_input, "no probe binary at `" + options.probe->string() + "`",
        "build it with `cmake --build build --target bevenv-probe`, or leave out `--probe`");
  }
  return options.probe ? options.probe : default_probe();
}

RunLineOptions run_line_options(const BuildImageOptions& options, const lockfiles::Lockfile& lock,
                                const detail::InputCheck& inputs, const ImageFiles& files) {
  RunLineOptions run;
  run.image = options.tag ? *options.tag : default_tag(lock);
  run.gpu = !lock.environment.cuda.empty();
  run.workers_per_gpu =
      options.workers.value_or(inputs.workers_per_gpu.value_or(kDefaultWorkersPerGpu));
  run.gpus = options.gpus;
  run.ipc_host = options.ipc_host;
  run.workdir = files.project_dir;
  return run;
}

void add_context_notes(const ImageFiles& files, bool has_probe, CommandOutput& out) {
  if (!files.packages_without_hashes.empty()) {
    const std::string names = quoted_list(files.packages_without_hashes);
    out.diagnostics.push_back({Mark::warning, 0,
                               "no sha256 recorded for " + names +
                                   ": a separate step installs them first without hash checks (`" +
                                   kUnhashedRequirementsName + "`); the rest is hash-checked",
                               false, false});
  }
  if (!has_probe) {
    out.diagnostics.push_back({Mark::info, 0,
                               "no `bevenv-probe` beside bevenv and no `--probe PATH`: the image "
                               "has no probe for `bevenv doctor`",
                               false, false});
  }
}

}  // namespace

CommandOutput build_image(const BuildImageOptions& options) {
  CommandOutput out;
  const detail::CheckedLock checked = detail::read_checked_lockfile(options.lockfile);
  const lockfiles::Lockfile& lock = checked.lock;
  const detail::InputCheck inputs = detail::check_lock_inputs(lock, options);
  if (!inputs.note.empty())
    out.diagnostics.push_back({Mark::warning, 0, inputs.note, false, false});

  const std::optional<fs::path> probe = image_probe(options);
  ImageOptions image;
  image.base_image = options.base_image;
  image.with_probe = probe.has_value();
  image.with_project = options.context_dir.has_value();
  if (options.project_dir) image.project_dir = *options.project_dir;
  image.source_date_epoch = detail::source_date_epoch();
  image.lockfile_name = options.lockfile.filename().string();
  image.lockfile_digest = checked.digest;
  const ImageFiles files = render_image_files(lock, image);
  const RunLineOptions run = run_line_options(options, lock, inputs, files);
  const std::string script = run_script(run);

  const std::string tar =
      write_context_tar(context_entries(files, script, options, probe), image.source_date_epoch);
  const std::string context_digest = "sha256:" + core::sha256_hex(tar);
  std::vector<detail::OutputFile> written = {{kDockerfileName, files.dockerfile, false},
                                             {kRequirementsName, files.requirements, false},
                                             {kRunScriptName, script, true},
                                             {kContextName, tar, false}};
  if (!files.unhashed_requirements.empty())
    written.push_back({kUnhashedRequirementsName, files.unhashed_requirements, false});
  for (const auto& [name, text] : files.build_requirements) written.push_back({name, text, false});
  detail::write_output_dir(options.output, written);

  add_context_notes(files, probe.has_value(), out);
  out.json = {{"lockfile", options.lockfile.string()},
              {"input_hash", lock.input_hash},
              {"input_hash_checked", inputs.checked},
              {"output", options.output.string()},
              {"base_image", files.base_image},
              {"context_digest", context_digest},
              {"tag", run.image},
              {"hashes_required", files.hashes_required},
              {"packages_without_hashes", files.packages_without_hashes},
              {"built_in_image", files.built_in_image},
              {"shm_size_gib", run.ipc_host ? 0 : shm_size_gib(run)},
              {"run", {{"docker", docker_run_line(run)}, {"podman", podman_run_line(run)}}},
              {"dry_run", options.dry_run}};
  out.add("Wrote `" + (options.output / kDockerfileName).string() + "` and the build context (" +
              context_digest.substr(0, 19) + "...)",
          Mark::ok);
  if (!options.dry_run) run_image_build(options, tar, run.image, out);
  out.add("Run it with (also in `" + (options.output / kRunScriptName).string() + "`):");
  out.add(docker_run_line(run), Mark::none, 1);
  return out;
}

}  // namespace bevenv::app
