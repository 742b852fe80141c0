#pragma once
// `bevenv completions bash|zsh|fish`: a neutral model of the command tree, built by walking the
// real CLI11 tree (so the scripts never go stale), and one renderer per shell.
#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"

namespace bevenv::cli::completion {

// What the word after an option (or in a positional slot) completes to.
enum class ValueKind {
  none,       // a flag: nothing follows
  text,       // free text: nothing to offer
  words,      // a fixed list (IsMember, or names read from the matrix)
  file,       // a path to a file
  directory,  // a path to a directory
};

struct Value {
  ValueKind kind = ValueKind::none;
  std::vector<std::string> words;  // kind words only
};

// How each shell's script says what a value completes to.
struct ValueSpelling {
  std::string_view bash_zsh;  // the `_bevenv_value_of` arm: `_bevenv_k=KIND`
  std::string_view fish;      // `complete` arguments: `-x` offers no files, `-r` needs a value
};

// `value` as one shell spells it (`shell` picks the column), a fixed list followed by its words
// as `quote_words` quotes them for that shell. The kinds are spelled in one switch, every shell
// side by side (completion_values.cpp), so that a new kind is spelled for all of them at once.
std::string spell_value(const Value& value, std::string_view ValueSpelling::*shell,
                        std::string (*quote_words)(const std::vector<std::string>&));

struct Option {
  std::vector<std::string> flags;  // `-o`, `--output`: the spellings the parser accepts
  std::string description;
  Value value;
  // A parent's option accepted here through CLI11's fallthrough: bash and zsh list it with the
  // command's own; fish declares it once, without a condition.
  bool inherited = false;
};

struct Positional {
  std::string name;
  std::string description;
  Value value;
  bool repeats = false;  // a vector: every later word is this one too
};

struct Command {
  std::string name;
  std::string description;
  std::vector<Option> options;
  std::vector<Positional> positionals;
  std::vector<Command> commands;
};

// Names that change with the matrix, read when the script is generated (so a `--matrix`
// overlay's profiles complete too, and the script needs no `bevenv` call at TAB time).
struct MatrixWords {
  std::vector<std::string> profiles;
  std::vector<std::string> packages;
  std::vector<std::string> gpus;      // `sm_86`: every architecture a known toolkit targets
  std::vector<std::string> failures;  // `F3`: the failure catalogue's ids
};

// The visible tree under `root`: hidden commands and options (empty group) are left out.
Command build_tree(const CLI::App& root, const MatrixWords& words);

std::string render_bash(const Command& root);
std::string render_zsh(const Command& root);
std::string render_fish(const Command& root);

// Registers `completions` (src/cli/completion_cli.cpp). Call it after every other command, so
// that the walk sees them all.
void add_completion_commands(CLI::App& root, const GlobalOptions& global, Action& action);

}  // namespace bevenv::cli::completion
