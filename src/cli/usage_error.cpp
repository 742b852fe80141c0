#include "usage_error.hpp"

#include <algorithm>
#include <vector>

#include "bevenv/core/closest.hpp"

namespace bevenv::cli {
namespace {

// The innermost subcommand the parser had entered (`bevenv matrix show`), or the root.
CLI::App* innermost(CLI::App& root) {
  CLI::App* at = &root;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().back();
  return at;
}

std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* up = app.get_parent(); up != nullptr; up = up->get_parent())
    path = up->get_name() + " " + path;
  return path;
}

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// The options `app` accepts, its parents' too (bevenv's global options fall through).
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* at = &app; at != nullptr; at = at->get_parent()) {
    for (const CLI::Option* option : at->get_options()) {
      for (const auto& name : option->get_lnames()) names.push_back("--" + name);
      for (const auto& name : option->get_snames()) names.push_back("-" + name);
    }
  }
  return names;
}

std::string backticked(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "`" : ", `") + word + "`";
  return out;
}

// The option `name` (`--profile`, `-o`) of `app` or of a parent (global options fall through).
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  for (const CLI::App* at = &app; at != nullptr; at = at->get_parent()) {
    if (const CLI::Option* option = at->get_option_no_throw(name)) return option;
  }
  return nullptr;
}

bool has_positionals(const CLI::App& app) {
  const auto options = app.get_options();
  return std::any_of(options.begin(), options.end(),
                     [](const CLI::Option* option) { return option->get_positional(); });
}

CLI::App* subcommand_named(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

// Reads the command line again, the way the parser does, to the first word nothing accepts:
// an unknown option, or a word where no command or positional argument fits. `at` ends as the
// command that word was given to. CLI11's own error texts are not read.
std::string first_unknown_word(CLI::App& root, const std::vector<std::string>& words,
                               CLI::App*& at) {
  at = &root;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--") return {};
    if (word.size() > 1 && word[0] == '-') {
      const std::string name = word.substr(0, word.find('='));
      const CLI::Option* option = find_option(*at, name);
      if (option == nullptr) return name;
      if (option->get_items_expected_min() > 0 && name.size() == word.size()) ++i;  // its value
      continue;
    }
    if (CLI::App* sub = subcommand_named(*at, word)) {
      at = sub;
      continue;
    }
    if (!has_positionals(*at)) return word;
  }
  return {};
}

UsageError unexpected_word(CLI::App& root, CLI::App& at, const std::string& word) {
  const std::string path = command_path(at);
  const std::string help = "`" + path + " --help`";
  if (word.size() > 1 && word[0] == '-') {
    const std::string guess = core::closest(word, option_names(at));
    return {"unknown option `" + word + "` for `" + path + "`",
            guess.empty() ? help + " lists its options"
                          : "did you mean `" + guess + "`? (" + help + " lists the options)"};
  }
  const std::vector<std::string> commands = subcommand_names(at);
  if (!commands.empty()) {
    const std::string guess = core::closest(word, commands);
    return {"unknown command `" + word + "`" + (&at == &root ? "" : " for `" + path + "`"),
            guess.empty()
                ? "commands: " + backticked(commands)
                : "did you mean `" + guess + "`? (commands: " + backticked(commands) + ")"};
  }
  return {"unexpected argument `" + word + "` for `" + path + "`",
          "options take their value right after them, such as `--profile NAME`; " + help +
              " lists them"};
}

}  // namespace

UsageError describe_usage_error(CLI::App& root, const CLI::ParseError& error,
                                const std::vector<std::string>& words) {
  CLI::App* given_to = &root;
  const std::string unknown = first_unknown_word(root, words, given_to);
  if (!unknown.empty()) return unexpected_word(root, *given_to, unknown);
  CLI::App& at = *innermost(root);
  const std::string path = command_path(at);
  const std::string name = error.get_name();
  if (name == "RequiredError" && at.get_require_subcommand_min() > 0 &&
      at.get_subcommands().empty()) {
    return {"`" + path + "` needs a command",
            "one of " + backticked(subcommand_names(at)) + "; `" + path + " --help` says more"};
  }
  std::string what = error.what();
  if (!what.empty() && what.back() == '\n') what.pop_back();
  // CLI11 starts these with the option's name: `--profile: 1 required TEXT missing`.
  const std::string option = what.substr(0, what.find(':'));
  if (name == "ArgumentMismatch" && option.rfind("-", 0) == 0 &&
      what.find("required") != std::string::npos) {
    const CLI::Option* known = at.get_option_no_throw(option);
    const std::string value = known != nullptr ? known->get_type_name() : std::string("VALUE");
    return {"`" + option + "` needs a value", "write it right after the option, such as `" +
                                                  option + " " + value + "` (`" + path +
                                                  " --help`)"};
  }
  // `package is required`: a positional argument or required option left out.
  const std::string required = " is required";
  if (name == "RequiredError" && what.size() > required.size() &&
      what.compare(what.size() - required.size(), required.size(), required) == 0) {
    const std::string item = what.substr(0, what.size() - required.size());
    return {"`" + path + "` needs `" + item + "`", "`" + path + " --help` shows the usage"};
  }
  // The rest (a value the option refuses) keeps the sentence, which names the option.
  return {"`" + path + "`: " + what, "`" + path + " --help` shows the usage"};
}

}  // namespace bevenv::cli
