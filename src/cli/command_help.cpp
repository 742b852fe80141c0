// Every subcommand's one-line summary and the end of its help (command lines to copy, then
// notes), kept in one table: the commands read alike, and a change of wording is one place.
#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string_view>

#include "commands.hpp"

namespace bevenv::cli {
namespace {

struct CommandHelp {
  std::string_view path;      // `matrix show`
  std::string_view about;     // the line in the parent's command list
  std::string_view examples;  // command lines, one per line
  std::string_view notes;     // after the examples; may be empty
  std::string_view heading;   // over the examples; empty: "Example:" or "Examples:"
};

constexpr CommandHelp kCommandHelp[] = {
    {"lock", "Resolve a profile for a target into bevenv.lock",
     "bevenv lock --profile bevfusion --python 3.8 --cuda-driver 12.2 --gpu sm_86",
     "Target facts come from flags, else from bevenv.toml, else from the profile.", ""},
    {"why", "Explain why a package is pinned in the lockfile", "bevenv why setuptools", "", ""},
    {"export", "Write the lockfile as requirements.txt, pylock.toml or JSON",
     "bevenv export --format requirements -o requirements.txt\n"
     "pip install --no-deps -r requirements.unhashed.txt  # written when some package has no hash\n"
     "pip install --no-deps --require-hashes -r requirements.txt\n"
     "bevenv export --format pylock -o pylock.toml  # PEP 751, for uv pip install -r",
     "", ""},
    {"sync", "Make a virtual environment exactly the lock (hash-checked)",
     "bevenv sync --venv .venv             create or fix .venv, then doctor's env checks\n"
     "bevenv sync --venv .venv --dry-run   print the plan; exit 1 when .venv differs",
     "Exit codes: 0 the venv matches the lock, 1 it differs (--dry-run, or after installing),\n"
     "2 bad input (no lockfile, no interpreter for the lock's Python), 3 the installer failed.",
     ""},
    {"build-image", "Write a Dockerfile and build context from bevenv.lock, and build the image",
     "bevenv build-image --context-dir ./bevfusion\n"
     "bevenv build-image --dry-run -o image/ --base-image "
     "mirror.local/cuda:11.3.1-cudnn8-devel-ubuntu20.04\n"
     "bevenv build-image --builder buildah --builder-arg=--storage-driver=vfs",
     "Exit codes: 0 built (or written with --dry-run), 2 bad or stale lockfile, 3 builder failed.",
     ""},
    {"doctor", "Check this host and environment against the lockfile and the matrix",
     "bevenv doctor                          every check, against ./bevenv.lock if present\n"
     "bevenv doctor --check shm              one check (runs only the probes it needs)\n"
     "bevenv doctor --log work_dirs/train.log   name known failures in a log\n"
     "bevenv doctor --record                 keep the verdicts for later locks\n"
     "bevenv doctor --launcher srun --nodes 2 --gpus-per-node 8   the same on a cluster",
     "Exit codes: 0 no problem (warnings allowed), 1 a problem was found, 2 bad input,\n"
     "3 the probe could not run. Check ids: docs/doctor.md.",
     ""},
    {"completions", "Print a shell completion script",
     "bevenv completions bash > ~/.local/share/bash-completion/completions/bevenv\n"
     "bevenv completions zsh > \"${fpath[1]}/_bevenv\"\n"
     "bevenv completions fish > ~/.config/fish/completions/bevenv.fish",
     "Profile, package and GPU names are those of the matrix when the script is written.",
     "Install (then start a new shell):"},
    {"matrix check", "Validate the matrix; list every error",
     "bevenv matrix check\nbevenv matrix check ./my-overlay", "", ""},
    {"matrix show", "Versions and variants of a package, with rules; without one, every package",
     "bevenv matrix show torch\nbevenv matrix show", "", ""},
    {"matrix rules", "The known-bad catalogue: symptom, fix, sources",
     "bevenv matrix rules\nbevenv matrix rules --failure F3", "", ""},
    {"matrix profiles", "The profiles; with a name, its pins, port and caveats",
     "bevenv matrix profiles\nbevenv matrix profiles uniad-2.0", "", ""},
    {"matrix snapshot",
     "Read the real index and write the generated layer (matrix/generated/pypi.toml)",
     "bevenv matrix snapshot --date 2026-12-01",
     "Roots: every profile's requirements and the `roots` of matrix/snapshot.toml.",
     "Run from the repository root. Example:"},
};

std::string footer_of(const CommandHelp& help) {
  const bool several = help.examples.find('\n') != std::string_view::npos;
  std::string footer(!help.heading.empty() ? help.heading : several ? "Examples:" : "Example:");
  for (std::size_t start = 0; start <= help.examples.size();) {
    const std::size_t end = std::min(help.examples.find('\n', start), help.examples.size());
    footer.append("\n  ").append(help.examples.substr(start, end - start));
    start = end + 1;
  }
  if (!help.notes.empty()) footer.append("\n").append(help.notes);
  return footer;
}

}  // namespace

CLI::App* add_command(CLI::App& parent, const std::string& name) {
  const std::string path = parent.get_parent() == nullptr ? name : parent.get_name() + " " + name;
  const auto* help = std::find_if(std::begin(kCommandHelp), std::end(kCommandHelp),
                                  [&](const CommandHelp& h) { return h.path == path; });
  // A command registered without its help is a programming error, found by any test that runs.
  if (help == std::end(kCommandHelp)) throw std::logic_error("no help for `" + path + "`");
  CLI::App* command = parent.add_subcommand(name, std::string(help->about));
  command->footer(footer_of(*help));
  return command;
}

}  // namespace bevenv::cli
