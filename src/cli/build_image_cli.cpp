#include "build_image_cli.hpp"

#include <iostream>

#include "bevenv/app/build_image.hpp"

namespace bevenv::cli {

void add_build_image_commands(CLI::App& root, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<app::BuildImageOptions>();
  auto lockfile = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>("bevenv-image");
  auto base_image = std::make_shared<std::string>();
  auto probe = std::make_shared<std::string>();
  auto context_dir = std::make_shared<std::string>();
  auto project_dir = std::make_shared<std::string>();
  auto builder = std::make_shared<std::string>();
  auto tag = std::make_shared<std::string>();
  auto project = std::make_shared<std::string>();
  auto workers = std::make_shared<std::int64_t>(-1);
  auto no_input_check = std::make_shared<bool>(false);

  CLI::App* cmd = add_command(root, "build-image");
  add_lockfile_option(*cmd, *lockfile);
  cmd->add_option("-o,--output", *output, "Directory for Dockerfile, context.tar and run.sh")
      ->capture_default_str()
      ->type_name("DIR");
  cmd->add_option("--base-image", *base_image,
                  "Base image replacing the lock's (a mirror of a deleted CUDA tag)")
      ->type_name("REF");
  cmd->add_option("--probe", *probe, "bevenv-probe binary to copy into the image")
      ->type_name("PATH");
  cmd->add_option("--context-dir", *context_dir, "Project source to copy in (and build) last")
      ->type_name("DIR");
  cmd->add_option("--project-dir", *project_dir, "Where the project source goes in the image")
      ->type_name("PATH");
  cmd->add_option("--builder", *builder, "docker, podman or buildah (default: the first found)")
      ->check(CLI::IsMember({"docker", "podman", "buildah"}));
  add_repeatable(*cmd, "--builder-arg", options->builder_args, "ARG",
                 "Extra argument for the build command, e.g. --builder-arg=--pull=never")
      ->allow_extra_args(false);
  cmd->add_option("-t,--tag", *tag, "Image name (default bevenv/<profile>:<input hash>)")
      ->type_name("NAME");
  cmd->add_option("--workers", *workers, "DataLoader workers per GPU (default: the profile's)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--gpus", options->gpus, "Training processes per container (sizes --shm-size)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--ipc-host", options->ipc_host, "Run with --ipc=host instead of --shm-size");
  cmd->add_flag("--dry-run", options->dry_run, "Write the files only; do not build");
  cmd->add_flag("--no-input-check", *no_input_check,
                "Build even when the lock's input hash no longer matches its inputs");
  cmd->add_option("--project", *project, "Project file for the input check (default ./bevenv.toml)")
      ->type_name("FILE");

  cmd->callback([&global, &action, options, lockfile, output, base_image, probe, context_dir,
                 project_dir, builder, tag, project, workers, no_input_check] {
    for (const auto& dir : global.matrix_overlays) options->matrix.overlays.emplace_back(dir);
    options->output = *output;
    if (!base_image->empty()) options->base_image = *base_image;
    if (!probe->empty()) options->probe = *probe;
    if (!context_dir->empty()) options->context_dir = *context_dir;
    if (!project_dir->empty()) options->project_dir = *project_dir;
    if (!builder->empty()) options->builder = *builder;
    if (!tag->empty()) options->tag = *tag;
    if (!project->empty()) options->project_file = *project;
    if (*workers >= 0) options->workers = *workers;
    options->check_inputs = !*no_input_check;
    const bool quiet = global.quiet;
    // The build log goes to stderr as it comes, so stdout stays the result (or --json).
    options->on_log_line = [quiet](std::string_view line) {
      if (!quiet) std::cerr << line << '\n';
    };
    action = [options, lockfile] {
      options->lockfile = lockfile->empty() ? app::default_lockfile(options->project_file)
                                            : std::filesystem::path(*lockfile);
      return app::build_image(*options);
    };
  });
}

}  // namespace bevenv::cli
