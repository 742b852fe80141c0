#include "bevenv/app/matrix_commands.hpp"
#include "commands.hpp"

namespace bevenv::cli {
namespace {

app::MatrixOptions matrix_options(const GlobalOptions& global) {
  app::MatrixOptions options;
  for (const auto& dir : global.matrix_overlays) options.overlays.emplace_back(dir);
  return options;
}

}  // namespace

void add_matrix_commands(CLI::App& root, const GlobalOptions& global, Action& action) {
  CLI::App* matrix = root.add_subcommand("matrix", "Inspect and validate the compatibility matrix");
  matrix->require_subcommand(1);

  auto check_dirs = std::make_shared<std::vector<std::string>>();
  CLI::App* check = matrix->add_subcommand("check", "Validate the matrix; list every error");
  check->footer("Examples:\n  bevenv matrix check\n  bevenv matrix check ./my-overlay");
  check->add_option("dir", *check_dirs,
                    "Overlay directories to validate on top of the embedded data");
  check->callback([&global, &action, check_dirs] {
    app::MatrixCheckOptions options;
    options.matrix = matrix_options(global);
    for (const auto& d : *check_dirs) options.dirs.emplace_back(d);
    action = [options] { return app::matrix_check(options); };
  });

  auto package = std::make_shared<std::string>();
  CLI::App* show = matrix->add_subcommand("show", "Versions and variants of a package, with rules");
  show->footer("Example:\n  bevenv matrix show torch");
  show->add_option("package", *package, "Package name (any spelling)")->required();
  show->callback([&global, &action, package] {
    app::MatrixShowOptions options;
    options.matrix = matrix_options(global);
    options.package = *package;
    action = [options] { return app::matrix_show(options); };
  });

  auto failure = std::make_shared<std::string>();
  CLI::App* rules =
      matrix->add_subcommand("rules", "The known-bad catalogue: symptom, fix, sources");
  rules->footer("Examples:\n  bevenv matrix rules\n  bevenv matrix rules --failure F3");
  rules->add_option("--failure", *failure, "Only rules for this field failure (F1..F12)");
  rules->callback([&global, &action, failure] {
    app::MatrixRulesOptions options;
    options.matrix = matrix_options(global);
    options.failure = *failure;
    action = [options] { return app::matrix_rules(options); };
  });
}

}  // namespace bevenv::cli
