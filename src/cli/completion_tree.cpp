// Walks the CLI11 tree into the neutral completion model (completion.hpp).
#include <algorithm>
#include <string_view>

#include "completion.hpp"

namespace bevenv::cli::completion {
namespace {

enum class Names { none, profiles, packages, gpus, failures, directory };

// Values CLI11 cannot tell us: names from the matrix, and positionals without a type name.
// `command` is the subcommand's own name, `*` any; `option` is CLI11's get_name().
struct Special {
  std::string_view command;
  std::string_view option;
  Names names;
};
constexpr Special kSpecials[] = {
    {"*", "--profile", Names::profiles},      {"*", "--gpu", Names::gpus},
    {"why", "package", Names::packages},      {"show", "package", Names::packages},
    {"profiles", "profile", Names::profiles}, {"check", "dir", Names::directory},
    {"rules", "--failure", Names::failures},
};

Names special_names(const CLI::App& command, const CLI::Option& option) {
  const std::string name = option.get_name();
  for (const auto& s : kSpecials) {
    if ((s.command == "*" || s.command == command.get_name()) && s.option == name) return s.names;
  }
  return Names::none;
}

// CLI11 appends each validator's description to the type name: IsMember's is `{a,b,c}`.
std::vector<std::string> member_words(const std::string& type_name) {
  const auto open = type_name.find(":{");
  const auto close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> words;
  std::string word;
  for (char c : type_name.substr(open + 2, close - open - 2)) {
    if (c == ',') {
      words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  words.push_back(word);
  return words;
}

// `URL|DIR` and `[DIR]` take directories (a URL cannot be completed); `PATH|X.Y` a path.
ValueKind kind_of_type(const std::string& type_name) {
  const std::string base = type_name.substr(0, type_name.find(':'));
  if (base.find("DIR") != std::string::npos) return ValueKind::directory;
  if (base.find("FILE") != std::string::npos || base.find("PATH") != std::string::npos) {
    return ValueKind::file;
  }
  return ValueKind::text;
}

Value value_of(const CLI::App& command, const CLI::Option& option, const MatrixWords& words) {
  // A flag expects no items (CLI11 gives flags `expected(0)`).
  if (option.get_items_expected_max() == 0) return {};
  switch (special_names(command, option)) {
    case Names::profiles:
      return {ValueKind::words, words.profiles};
    case Names::packages:
      return {ValueKind::words, words.packages};
    case Names::gpus:
      return {ValueKind::words, words.gpus};
    case Names::failures:
      return {ValueKind::words, words.failures};
    case Names::directory:
      return {ValueKind::directory, {}};
    case Names::none:
      break;
  }
  const std::string type_name = option.get_type_name();
  std::vector<std::string> members = member_words(type_name);
  if (!members.empty()) return {ValueKind::words, members};
  return {kind_of_type(type_name), {}};
}

bool hidden(const CLI::Option& option) { return option.get_group().empty(); }

Option option_of(const CLI::App& command, const CLI::Option& option, const MatrixWords& words) {
  Option out;
  for (const auto& s : option.get_snames()) out.flags.push_back("-" + s);
  for (const auto& l : option.get_lnames()) out.flags.push_back("--" + l);
  out.description = option.get_description();
  out.value = value_of(command, option, words);
  return out;
}

bool has_flag(const Command& command, const std::string& flag) {
  return std::any_of(command.options.begin(), command.options.end(), [&](const Option& o) {
    return std::find(o.flags.begin(), o.flags.end(), flag) != o.flags.end();
  });
}

// With fallthrough the parent's options are accepted after the subcommand too; its own
// `--help` and `--version` are not what a user means there, and a duplicate flag would be
// offered twice.
void inherit(Command& child, const CLI::App& parent, const Command& parent_model) {
  for (const auto& option : parent_model.options) {
    if (std::any_of(option.flags.begin(), option.flags.end(),
                    [&](const std::string& f) { return has_flag(child, f); })) {
      continue;
    }
    const auto* help = parent.get_help_ptr();
    const auto* version = parent.get_version_ptr();
    const bool skip = (help != nullptr && option.flags == option_of(parent, *help, {}).flags) ||
                      (version != nullptr && option.flags == option_of(parent, *version, {}).flags);
    if (skip) continue;
    Option copy = option;
    copy.inherited = true;
    child.options.push_back(std::move(copy));
  }
}

// `parent`/`parent_model`: the command above, whose options (its inherited ones included) are
// taken before the walk goes further down, so `matrix show` gets the root's `--json` too.
Command walk(const CLI::App& app, const MatrixWords& words, const CLI::App* parent,
             const Command* parent_model) {
  Command out;
  out.name = app.get_name();
  out.description = app.get_description();
  for (const CLI::Option* option : app.get_options()) {
    if (hidden(*option)) continue;
    if (option->nonpositional()) {
      out.options.push_back(option_of(app, *option, words));
      continue;
    }
    Positional p;
    p.name = option->get_name();
    p.description = option->get_description();
    p.value = value_of(app, *option, words);
    p.repeats = option->get_expected_max() > 1;
    out.positionals.push_back(std::move(p));
  }
  if (parent != nullptr && app.get_fallthrough()) inherit(out, *parent, *parent_model);
  const auto visible = [](const CLI::App* sub) { return !sub->get_group().empty(); };
  for (const CLI::App* sub : app.get_subcommands(visible)) {
    out.commands.push_back(walk(*sub, words, &app, &out));
  }
  return out;
}

}  // namespace

Command build_tree(const CLI::App& root, const MatrixWords& words) {
  return walk(root, words, nullptr, nullptr);
}

}  // namespace bevenv::cli::completion
