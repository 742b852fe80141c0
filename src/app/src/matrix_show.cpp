#include <algorithm>

#include "bevenv/app/matrix_commands.hpp"
#include "bevenv/app/matrix_source.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/util/text.hpp"
#include "matrix_text.hpp"

namespace bevenv::app {
namespace {

std::string source_of(const matrix::PackageVersion& v) {
  if (v.build == matrix::BuildKind::source) return "source build";
  if (!v.find_links.empty()) return v.find_links;
  if (!v.index_url.empty()) return v.index_url;
  return "PyPI";
}

std::vector<std::string> rule_ids(const std::vector<const matrix::Rule*>& rules) {
  std::vector<std::string> ids;
  for (const auto* rule : rules) ids.push_back(rule->id);
  return ids;
}

// Columns padded to their widest cell; the last column is not padded.
std::vector<std::string> render_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::vector<std::string> lines;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

[[noreturn]] void unknown_package(const matrix::Matrix& m, const std::string& name) {
  const std::string meant = package_meant(m, name);
  const std::string hint = meant.empty() ? "`bevenv matrix show` lists every package in the matrix"
                                         : "did you mean `" + meant + "`?";
  throw core::Error(core::ExitCode::bad_input, "`" + name + "` is not in the matrix", hint);
}

// Probe results recorded by `bevenv doctor --record` for this package, one line each.
nlohmann::json observed_of(const matrix::Matrix& m, const std::string& name, CommandOutput& out) {
  nlohmann::json observed = nlohmann::json::array();
  for (const auto& o : m.observed) {
    if (o.package != name) continue;
    if (observed.empty()) out.add("observed by `bevenv doctor --record`:", Mark::none, 1);
    const bool ok = o.outcome == matrix::Outcome::ok;
    std::string target;
    for (const auto& [key, value] : o.target)
      target += (target.empty() ? "" : ", ") + key + " " + value;
    out.add(o.version.to_string() + ": " + o.check + (ok ? " passed" : " failed") + " on " +
                o.host + " (" + o.date + (target.empty() ? "" : "; " + target) + ")",
            ok ? Mark::ok : Mark::problem, 2);
    observed.push_back({{"version", o.version.to_string()},
                        {"check", o.check},
                        {"outcome", ok ? "ok" : "fail"},
                        {"host", o.host},
                        {"date", o.date},
                        {"target", o.target},
                        {"detail", o.detail},
                        {"origin", o.origin.to_string()}});
  }
  return observed;
}

}  // namespace

// Every package, one line each, with how many of its versions are curated (matrix/data, an
// overlay) rather than read from an index by `bevenv matrix snapshot`.
CommandOutput list_packages(const matrix::Matrix& m) {
  std::vector<std::vector<std::string>> rows = {{"PACKAGE", "VERSIONS", "CURATED", "NEWEST"}};
  nlohmann::json packages = nlohmann::json::array();
  std::size_t versions = 0;
  for (const auto& [name, package] : m.packages) {
    const auto curated = std::count_if(package.versions.begin(), package.versions.end(),
                                       [](const auto& v) { return !v.generated; });
    // Versions are kept in ascending PEP 440 order; a package has one at least.
    const std::string newest =
        package.versions.empty() ? "-" : package.versions.back().version.to_string();
    versions += package.versions.size();
    rows.push_back(
        {name, std::to_string(package.versions.size()), std::to_string(curated), newest});
    packages.push_back({{"name", name},
                        {"versions", package.versions.size()},
                        {"curated", curated},
                        {"newest", newest}});
  }
  CommandOutput out;
  out.add(std::to_string(m.packages.size()) + " packages, " + std::to_string(versions) +
          " versions in matrix " + m.version +
          "; `bevenv matrix show PACKAGE` lists one's versions");
  for (const auto& line : render_table(rows)) out.add(line, Mark::none, 1);
  out.json = {{"matrix_version", m.version}, {"packages", std::move(packages)}};
  return out;
}

CommandOutput matrix_show(const MatrixShowOptions& options) {
  const matrix::Matrix m = load_matrix_or_throw(options.matrix);
  if (options.package.empty()) return list_packages(m);
  const matrix::Package* package = m.find_package(options.package);
  if (package == nullptr) unknown_package(m, options.package);
  CommandOutput out;
  out.add("`" + package->name + "`: " + std::to_string(package->versions.size()) +
          " versions in matrix " + m.version);
  std::vector<std::vector<std::string>> rows = {
      {"VERSION", "PYTHON", "CUDA", "SASS", "BUILD", "FROM", "RULES"}};
  nlohmann::json versions = nlohmann::json::array();
  for (const auto& v : package->versions) {
    const auto rules = m.rules_touching(v.name, v.version);
    const std::string python = v.python.to_string();
    rows.push_back({v.version.to_string(), python.empty() ? "any" : python,
                    v.cuda ? v.cuda->to_string() : "-",
                    v.sass.empty() ? "-" : util::join(v.sass, " "),
                    std::string(matrix::build_kind_name(v.build)), source_of(v),
                    rules.empty() ? "-" : util::join(rule_ids(rules), ", ")});
    nlohmann::json requires_list = nlohmann::json::array();
    for (const auto& r : v.requirements) requires_list.push_back(r.to_string());
    versions.push_back({{"version", v.version.to_string()},
                        {"install_version", v.install_version()},
                        {"python", python},
                        {"cuda", v.cuda ? v.cuda->to_string() : ""},
                        {"sass", v.sass},
                        {"ptx", v.ptx},
                        {"index", v.index_url},
                        {"find_links", v.find_links},
                        {"build", matrix::build_kind_name(v.build)},
                        {"requires", requires_list},
                        {"deps_complete", v.deps_complete},
                        {"rules", rule_ids(rules)},
                        {"note", v.note},
                        {"sources", v.sources},
                        {"origin", v.origin.to_string()},
                        {"layer", matrix::layer_name(v.origin.layer)}});
  }
  for (const auto& line : render_table(rows)) out.add(line, Mark::none, 1);
  out.json["package"] = package->name;
  out.json["matrix_version"] = m.version;
  out.json["versions"] = versions;
  out.json["observed"] = observed_of(m, package->name, out);
  return out;
}

}  // namespace bevenv::app
