#include "bevenv/app/lockfile_commands.hpp"

#include <sstream>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/lockfiles/export.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "bevenv/lockfiles/why.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

lockfiles::Lockfile read_or_explain(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) {
    throw Error(ExitCode::bad_input, "no lockfile at `" + path.string() + "`",
                "run `bevenv lock` first, or name the file with `--lockfile PATH`");
  }
  return lockfiles::read_lockfile(path);
}

CommandOutput& write_or_print(const std::optional<std::filesystem::path>& output,
                              const std::string& text, CommandOutput& out) {
  if (output) {
    core::write_file_atomic(*output, text);
    out.add("Wrote `" + output->string() + "`");
    return out;
  }
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out.add(line);
  return out;
}

// The hash-checked set goes to `-o` (or stdout); the packages whose files have no recorded
// sha256 go to a second file beside it, installed first without `--require-hashes`.
CommandOutput export_requirements_files(const lockfiles::Lockfile& lock,
                                        const ExportOptions& options) {
  lockfiles::RequirementsOptions requirements;
  requirements.lockfile_name = options.lockfile.filename().string();
  requirements.hashes = options.hashes;
  if (options.output) requirements.file_name = options.output->filename().string();
  requirements.unhashed_file_name = lockfiles::unhashed_file_name_for(requirements.file_name);
  const auto exported = lockfiles::export_requirements(lock, requirements);
  CommandOutput out;
  const bool split = !exported.unhashed_text.empty();
  std::optional<std::filesystem::path> unhashed_path;
  if (split && options.output)
    unhashed_path = options.output->parent_path() / requirements.unhashed_file_name;
  out.json = {{"format", "requirements"},
              {"hashes", exported.hashes_written},
              {"text", exported.text},
              {"packages_without_hashes", exported.packages_without_hashes},
              {"unhashed_text", split ? nlohmann::json(exported.unhashed_text) : nullptr},
              {"unhashed_output",
               unhashed_path ? nlohmann::json(unhashed_path->string()) : nlohmann::json(nullptr)}};
  const std::string names = quoted_list(exported.packages_without_hashes);
  if (options.hashes && split && unhashed_path) {
    out.diagnostics.push_back({Mark::warning, 0,
                               "no sha256 recorded for " + names + ": pinned without hashes in `" +
                                   unhashed_path->string() +
                                   "`, installed first with `pip install "
                                   "--no-deps -r`, then this file with `--require-hashes`",
                               false, false});
  } else if (options.hashes && split) {
    out.diagnostics.push_back({Mark::warning, 0,
                               "no sha256 recorded for " + names +
                                   ": they are not in this output; `-o FILE` also writes them to "
                                   "`FILE`'s sibling `*.unhashed.txt`, installed first",
                               false, false});
  }
  write_or_print(options.output, exported.text, out);
  if (unhashed_path) {
    core::write_file_atomic(*unhashed_path, exported.unhashed_text);
    out.add("Wrote `" + unhashed_path->string() + "` (install it first)");
  }
  return out;
}

// PEP 751 has no build steps and requires a hash for every file: what it cannot hold is named on
// stderr (and under `[tool.bevenv]` in the file), and the export still succeeds.
CommandOutput export_pylock_file(const lockfiles::Lockfile& lock, const ExportOptions& options) {
  lockfiles::PylockOptions pylock;
  pylock.lockfile_name = options.lockfile.filename().string();
  pylock.allow_unhashed = options.allow_unhashed;
  const auto exported = lockfiles::export_pylock(lock, pylock);
  CommandOutput out;
  nlohmann::json left_out = nlohmann::json::array();
  std::vector<std::string> names;
  for (const auto& o : exported.left_out) {
    left_out.push_back({{"name", o.name}, {"version", o.version}, {"reason", o.reason}});
    names.push_back(o.version.empty() ? o.name : o.name + " " + o.version);
  }
  out.json = {{"format", "pylock"},
              {"packages", exported.packages},
              {"left_out", left_out},
              {"unhashed", exported.unhashed},
              {"build_isolation", exported.build_isolation},
              {"text", exported.text}};
  const auto warn = [&out](std::string text) {
    out.diagnostics.push_back({Mark::warning, 0, std::move(text), false, false});
  };
  if (!names.empty()) {
    warn("not in pylock.toml (no pylock form): " + quoted_list(names) +
         "; `bevenv sync` installs them, or see `[tool.bevenv] left-out` in the file" +
         (options.allow_unhashed ? "" : " (`--allow-unhashed` writes files without a sha256)"));
  }
  if (!exported.unhashed.empty()) {
    warn("written with an empty `hashes` table, which PEP 751 does not allow: " +
         quoted_list(exported.unhashed));
  }
  if (!exported.build_isolation.empty()) {
    warn("the lock builds " + quoted_list(exported.build_isolation) +
         " without build isolation, after the packages it needs: install with "
         "`--no-build-isolation`, or use `bevenv sync`");
  }
  return write_or_print(options.output, exported.text, out);
}

}  // namespace

CommandOutput why(const WhyOptions& options) {
  const lockfiles::Lockfile lock = read_or_explain(options.lockfile);
  const auto explained = lockfiles::explain_package(lock, options.package);
  if (!explained)
    throw Error(ExitCode::bad_input, explained.error().message, explained.error().hint);
  CommandOutput out;
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& line : explained.value()) {
    out.add(line.text, Mark::none, line.indent);
    lines.push_back(line.text);
  }
  const lockfiles::Package* package = lock.find_package(options.package);
  nlohmann::json reasons = nlohmann::json::array();
  for (const auto& reason : package->why) {
    nlohmann::json r = {{"kind", lockfiles::to_string(reason.kind)}, {"text", reason.text}};
    if (reason.package) r["package"] = *reason.package;
    if (reason.rule_id) r["rule"] = *reason.rule_id;
    if (reason.source) r["source"] = *reason.source;
    reasons.push_back(std::move(r));
  }
  out.json = {{"package", package->name},
              {"version", package->version},
              {"why", reasons},
              {"lines", lines}};
  return out;
}

CommandOutput export_lockfile(const ExportOptions& options) {
  const lockfiles::Lockfile lock = read_or_explain(options.lockfile);
  if (options.format == ExportFormat::requirements) return export_requirements_files(lock, options);
  if (options.format == ExportFormat::pylock) return export_pylock_file(lock, options);
  CommandOutput out;
  const std::string text = lockfiles::export_json(lock);
  out.json = nlohmann::json::parse(text);
  return write_or_print(options.output, text, out);
}

}  // namespace bevenv::app
