// The bash and zsh renderers. Both shells read the same `case` tables (their `case`, arrays
// and single quotes agree), so only the walk over the words and the final reply differ.
// The fish renderer is in completion_fish.cpp.
#include <functional>
#include <string_view>

#include "bevenv/util/text.hpp"
#include "completion.hpp"

namespace bevenv::cli::completion {
namespace {

using util::sh_single_quoted;

// A description is one line in every shell's menu.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  return text;
}

std::string array(const std::vector<std::string>& items) {
  std::string out = "_bevenv_a=(";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + sh_single_quoted(items[i]);
  return out + ")";
}

using Visit = std::function<void(const Command&, const std::string& path)>;

void visit(const Command& command, const std::string& path, const Visit& fn) {
  fn(command, path);
  for (const auto& sub : command.commands) visit(sub, path + " " + sub.name, fn);
}

// `'bevenv lock -r' | 'bevenv lock --requirements'`: one `case` pattern per spelling.
std::string patterns(const std::string& path, const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& key : keys)
    out += (out.empty() ? "" : " | ") + sh_single_quoted(path + " " + key);
  return out;
}

// What `_bevenv_value_of` replies for an option or a positional slot.
std::string value_arm(const Value& value) {
  return spell_value(value, &ValueSpelling::bash_zsh, array);
}

std::string table(const std::string& name, const std::string& comment, const std::string& arms) {
  return "# " + comment + "\n" + name + "() {\n  case \"$1\" in\n" + arms +
         "    *) return 1 ;;\n  esac\n}\n\n";
}

std::string arm(const std::string& pattern, const std::string& body) {
  return "    " + pattern + ") " + body + " ;;\n";
}

// The four tables: a subcommand's path, an option's or positional slot's value, and the
// subcommands and options (`name:description`) of each command.
std::string tables(const Command& root) {
  std::string child, value, commands, options;
  visit(root, root.name, [&](const Command& c, const std::string& path) {
    std::vector<std::string> names, flags;
    for (const auto& sub : c.commands) {
      child += arm(sh_single_quoted(path + " " + sub.name),
                   "_bevenv_r=" + sh_single_quoted(path + " " + sub.name));
      names.push_back(sub.name + ":" + one_line(sub.description));
    }
    for (const auto& o : c.options) {
      if (o.value.kind != ValueKind::none)
        value += arm(patterns(path, o.flags), value_arm(o.value));
      for (const auto& f : o.flags) flags.push_back(f + ":" + one_line(o.description));
    }
    for (std::size_t i = 0; i < c.positionals.size(); ++i) {
      const Positional& p = c.positionals[i];
      const std::string slot = sh_single_quoted(path + " #" + (p.repeats ? "" : std::to_string(i)));
      value += arm(p.repeats ? slot + "*" : slot, value_arm(p.value));
    }
    if (!names.empty()) commands += arm(sh_single_quoted(path), array(names));
    options += arm(sh_single_quoted(path), array(flags));
  });
  return table("_bevenv_child",
               "_bevenv_r: the path of a subcommand, from `$1` = \"PATH NAME\" (`bevenv matrix "
               "show`).",
               child) +
         table(
             "_bevenv_value_of",
             "_bevenv_k (words, file, directory, text) and _bevenv_a: the value of \"PATH OPTION\" "
             "or \"PATH #N\" (the Nth positional); fails for a flag.",
             value) +
         table("_bevenv_commands",
               "_bevenv_a: the subcommands (name:description) of the command PATH.", commands) +
         table("_bevenv_options", "_bevenv_a: the options (flag:description) of the command PATH.",
               options);
}

// The walk over the words before the cursor, the same in both shells once a word that belongs
// to a pending option is dealt with: an option may take the next word, a command moves `cmd`,
// anything else is the next positional slot.
constexpr const char* kWalkRest = R"(    elif [[ $word == -* ]]; then
      pending=
      _bevenv_value_of "$cmd $word" && pending=$word
    elif _bevenv_child "$cmd $word"; then
      cmd=$_bevenv_r slot=0
    else
      slot=$((slot + 1))
    fi
  done
  if [[ -n $pending && $cur != -* ]]; then
)";

constexpr const char* kBashHead = R"(_bevenv() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=bevenv word pending= slot=0 i _bevenv_r _bevenv_k
  local -a _bevenv_a
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    # A word after an option that takes a value is that value, unless it is another option
    # (`doctor --record` may go without one).
    if [[ -n $pending && $word != -* ]]; then
      # bash splits `--opt=value` at `=`: the value is the word after the `=`.
      [[ $word == = ]] || pending=
)";

constexpr const char* kBashTail = R"(    [[ $cur == = ]] && cur=
    _bevenv_reply "$cmd $pending" "$cur"
  elif [[ $cur == -* ]]; then
    _bevenv_options "$cmd" && _bevenv_reply_names "$cur"
  elif _bevenv_commands "$cmd"; then
    _bevenv_reply_names "$cur"
  else
    _bevenv_reply "$cmd #$slot" "$cur"
  fi
  return 0
}

# compgen -W expands its words again; ${a[*]@Q} quotes them so `$` and backticks stay text.
_bevenv_reply_names() {
  _bevenv_a=("${_bevenv_a[@]%%:*}")
  mapfile -t COMPREPLY < <(compgen -W "${_bevenv_a[*]@Q}" -- "$1")
}

_bevenv_reply() {
  _bevenv_value_of "$1" || return 0
  case $_bevenv_k in
    words) mapfile -t COMPREPLY < <(compgen -W "${_bevenv_a[*]@Q}" -- "$2") ;;
    file)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$2")
      ;;
    directory)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -d -- "$2")
      ;;
  esac
}

complete -F _bevenv bevenv
)";

// zsh does not split at `=`, and `path` is its $PATH array: the walk says `cmd`.
constexpr const char* kZshHead = R"(_bevenv() {
  local cur=${words[CURRENT]} cmd=bevenv word pending= slot=0 i _bevenv_r _bevenv_k
  local -a _bevenv_a
  for ((i = 2; i < CURRENT; i++)); do
    word=${words[i]}
    if [[ -n $pending && $word != -* ]]; then
      pending=
    elif [[ $word == -*=* ]]; then
      pending=
)";

constexpr const char* kZshTail = R"(    _bevenv_reply "$cmd $pending"
  elif [[ $cur == -*=* ]]; then
    word=${cur%%=*}
    compset -P '*='
    _bevenv_reply "$cmd $word"
  elif [[ $cur == -* ]]; then
    _bevenv_options "$cmd" && _describe -t options 'bevenv option' _bevenv_a
  elif _bevenv_commands "$cmd"; then
    _describe -t commands 'bevenv command' _bevenv_a
  else
    _bevenv_reply "$cmd #$slot"
  fi
}

_bevenv_reply() {
  _bevenv_value_of "$1" || return 1
  case $_bevenv_k in
    words) compadd -a _bevenv_a ;;
    file) _files ;;
    directory) _directories ;;
  esac
}

# Autoloaded from $fpath this file is the body of _bevenv: complete now; sourced: register.
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
  _bevenv "$@"
else
  compdef _bevenv bevenv
fi
)";

std::string header(const std::string& shell, const std::string& install) {
  return "# " + shell + " completion for bevenv, generated by `bevenv completions " + shell +
         "` from the\n# command tree and matrix of the bevenv that wrote it: regenerate after an "
         "upgrade.\n# Install: " +
         install + "\n\n";
}

}  // namespace

std::string render_bash(const Command& root) {
  return header("bash",
                "bevenv completions bash > ~/.local/share/bash-completion/completions/bevenv") +
         tables(root) + kBashHead + kWalkRest + kBashTail;
}

std::string render_zsh(const Command& root) {
  return "#compdef bevenv\n" + header("zsh", "bevenv completions zsh > \"${fpath[1]}/_bevenv\"") +
         tables(root) + kZshHead + kWalkRest + kZshTail;
}

}  // namespace bevenv::cli::completion
