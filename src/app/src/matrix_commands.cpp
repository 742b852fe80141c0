#include "bevenv/app/matrix_commands.hpp"

#include "bevenv/matrix/loader.hpp"

namespace bevenv::app {
namespace {

std::string plural(std::size_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

CommandOutput matrix_check(const MatrixCheckOptions& options) {
  // The directories to check are overlays like `--matrix` ones, so that one also read by itself
  // (the observed directory) is read once.
  MatrixOptions matrix = options.matrix;
  matrix.overlays.insert(matrix.overlays.end(), options.dirs.begin(), options.dirs.end());
  matrix::LoadOptions load_options;
  load_options.overlays = matrix_overlays(matrix);
  CommandOutput out;
  nlohmann::json overlays = nlohmann::json::array();
  for (const auto& dir : load_options.overlays) overlays.push_back(dir.generic_string());
  out.json["overlays"] = overlays;
  auto result = matrix::load(load_options);
  if (!result) {
    const auto& diagnostics = result.error();
    nlohmann::json errors = nlohmann::json::array();
    for (const auto& d : diagnostics) {
      out.add(d.to_string(), Mark::problem);
      errors.push_back(
          {{"file", d.file}, {"line", d.line}, {"column", d.column}, {"message", d.message}});
    }
    out.add("matrix check failed: " + plural(diagnostics.size(), "error"));
    out.exit_code = core::ExitCode::bad_input;
    out.json["ok"] = false;
    out.json["errors"] = errors;
    return out;
  }
  const matrix::Matrix& m = result.value();
  out.add("matrix " + m.version + ": " + plural(m.packages.size(), "package") + ", " +
              plural(m.version_count(), "version") + ", " + plural(m.rules.size(), "rule") + ", " +
              plural(m.failures.size(), "failure") + ", " + plural(m.profiles.size(), "profile") +
              ", " + plural(m.toolkits.size(), "toolkit") + ", " +
              plural(m.observed.size(), "observed record") +
              (m.observed_hosts.empty() ? std::string()
                                        : ", " + plural(m.observed_hosts.size(), "observed host")),
          Mark::ok);
  for (const auto& dir : load_options.overlays)
    out.add("overlay " + dir.generic_string(), Mark::info, 1);
  out.json["ok"] = true;
  out.json["version"] = m.version;
  out.json["errors"] = nlohmann::json::array();
  out.json["counts"] = {
      {"packages", m.packages.size()}, {"versions", m.version_count()},
      {"rules", m.rules.size()},       {"profiles", m.profiles.size()},
      {"toolkits", m.toolkits.size()}, {"observed", m.observed.size()},
      {"failures", m.failures.size()}, {"observed_hosts", m.observed_hosts.size()}};
  return out;
}

}  // namespace bevenv::app
