#include "bevenv/app/matrix_commands.hpp"
#include "bevenv/app/matrix_snapshot.hpp"
#include "commands.hpp"

namespace bevenv::cli {
namespace {

// Show, rules and profiles differ only in the one text their subcommand takes (a positional or
// an option) into `field`, and the command they run. Returns the text's option, to refine.
template <class Options>
CLI::Option* take_text(CLI::App* command, const GlobalOptions& global, Action& action,
                       const std::string& name, const std::string& help,
                       std::string Options::*field, app::CommandOutput (*run)(const Options&)) {
  auto text = std::make_shared<std::string>();
  CLI::Option* option = command->add_option(name, *text, help);
  command->callback([&global, &action, text, field, run] {
    Options options;
    options.matrix = matrix_options(global);
    options.*field = *text;
    action = [options, run] { return run(options); };
  });
  return option;
}

}  // namespace

void add_matrix_commands(CLI::App& root, const GlobalOptions& global, Action& action) {
  CLI::App* matrix = root.add_subcommand("matrix", "Inspect and validate the compatibility matrix");
  matrix->require_subcommand(1);

  auto check_dirs = std::make_shared<std::vector<std::string>>();
  CLI::App* check = add_command(*matrix, "check");
  check->add_option("dir", *check_dirs,
                    "Overlay directories to validate on top of the embedded data");
  check->callback([&global, &action, check_dirs] {
    app::MatrixCheckOptions options;
    options.matrix = matrix_options(global);
    for (const auto& d : *check_dirs) options.dirs.emplace_back(d);
    action = [options] { return app::matrix_check(options); };
  });

  CLI::App* show = add_command(*matrix, "show");
  take_text(show, global, action, "package", "Package name (any spelling)",
            &app::MatrixShowOptions::package, app::matrix_show);

  CLI::App* rules = add_command(*matrix, "rules");
  take_text(rules, global, action, "--failure", "Only rules for this field failure (F1..F12)",
            &app::MatrixRulesOptions::failure, app::matrix_rules);

  CLI::App* profiles = add_command(*matrix, "profiles");
  take_text(profiles, global, action, "profile", "Profile name",
            &app::MatrixProfilesOptions::profile, app::matrix_profiles);

  auto snapshot = std::make_shared<app::MatrixSnapshotOptions>();
  auto snapshot_out = std::make_shared<std::string>();
  auto snapshot_config = std::make_shared<std::string>();
  auto snapshot_max = std::make_shared<std::size_t>(0);
  CLI::App* snap = add_command(*matrix, "snapshot");
  snap->add_option("--date", snapshot->date, "The snapshot's date (default: today, UTC)")
      ->type_name("YYYY-MM-DD");
  snap->add_option("-o,--output", *snapshot_out, "Directory to write pypi.toml into")
      ->type_name("DIR");
  snap->add_option("--config", *snapshot_config,
                   "Roots and targets (default: matrix/snapshot.toml)")
      ->type_name("FILE");
  snap->add_option("--index-url", snapshot->index_url, "Package index to read, instead of PyPI")
      ->type_name("URL");
  add_repeatable(*snap, "--find-links", snapshot->find_links, "URL|DIR",
                 "A page of links to wheels, or a local directory, read first");
  snap->add_option("--max-versions", *snapshot_max,
                   "Newest releases kept per specifier (default 40, or the config's)");
  snap->callback([&global, &action, snapshot, snapshot_out, snapshot_config, snapshot_max] {
    snapshot->matrix = matrix_options(global);
    if (!snapshot_out->empty()) snapshot->output_dir = *snapshot_out;
    if (!snapshot_config->empty()) snapshot->config = *snapshot_config;
    if (*snapshot_max > 0) snapshot->max_versions = *snapshot_max;
    snapshot->progress = !global.quiet && !global.json;
    action = [snapshot] { return app::matrix_snapshot(*snapshot); };
  });
}

}  // namespace bevenv::cli
