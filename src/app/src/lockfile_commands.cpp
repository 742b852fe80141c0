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
  CommandOutput out;
  std::string text;
  if (options.format == ExportFormat::json) {
    text = lockfiles::export_json(lock);
    out.json = nlohmann::json::parse(text);
  } else {
    lockfiles::RequirementsOptions requirements;
    requirements.lockfile_name = options.lockfile.filename().string();
    requirements.hashes = options.hashes;
    const auto exported = lockfiles::export_requirements(lock, requirements);
    text = exported.text;
    if (options.hashes && !exported.hashes_written && !exported.packages_without_hashes.empty()) {
      std::string names;
      for (const auto& n : exported.packages_without_hashes)
        names += (names.empty() ? "`" : ", `") + n + "`";
      out.diagnostics.push_back(
          {Mark::warning, 0, "no `--hash` lines: no sha256 recorded for " + names, false, false});
    }
    out.json = {{"format", "requirements"}, {"hashes", exported.hashes_written}, {"text", text}};
  }
  if (options.output) {
    core::write_file_atomic(*options.output, text);
    out.add("Wrote `" + options.output->string() + "`");
    return out;
  }
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out.add(line);
  return out;
}

}  // namespace bevenv::app
