// `bevenv completions bash|zsh|fish`: the script on stdout, byte for byte.
#include <algorithm>
#include <iostream>

#include "bevenv/app/matrix_source.hpp"
#include "completion.hpp"

namespace bevenv::cli::completion {
namespace {

// The matrix every command would load (embedded, BEVENV_MATRIX_PATH, --matrix), so overlay
// profiles complete too.
MatrixWords matrix_words(const GlobalOptions& global) {
  const matrix::Matrix m = app::load_matrix_or_throw(matrix_options(global));
  MatrixWords words;
  for (const auto& [name, profile] : m.profiles) words.profiles.push_back(name);
  for (const auto& [name, package] : m.packages) words.packages.push_back(name);
  for (const auto& toolkit : m.toolkits) {
    words.gpus.insert(words.gpus.end(), toolkit.sm.begin(), toolkit.sm.end());
  }
  for (const auto& failure : m.failures) words.failures.push_back(failure.id);
  std::sort(words.gpus.begin(), words.gpus.end());
  words.gpus.erase(std::unique(words.gpus.begin(), words.gpus.end()), words.gpus.end());
  return words;
}

std::string render(const std::string& shell, const Command& tree) {
  if (shell == "zsh") return render_zsh(tree);
  if (shell == "fish") return render_fish(tree);
  return render_bash(tree);
}

}  // namespace

void add_completion_commands(CLI::App& root, const GlobalOptions& global, Action& action) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = add_command(root, "completions");
  add_choice(*cmd, "shell", *shell, {"bash", "zsh", "fish"})->required();
  // The tree is walked when the action runs: by then every command, this one included, is
  // registered.
  cmd->callback([&root, &global, &action, shell] {
    action = [&root, &global, shell] {
      const std::string script = render(*shell, build_tree(root, matrix_words(global)));
      app::CommandOutput out;
      if (global.json) {
        out.json = {{"shell", *shell}, {"script", script}};
        return out;
      }
      // The printer adds marks and styles backticks; a script must reach stdout unchanged.
      std::cout << script << std::flush;
      return out;
    };
  });
}

}  // namespace bevenv::cli::completion
