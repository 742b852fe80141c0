#include "bevenv/app/matrix_snapshot.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>

#include "bevenv/app/target.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/index/progress.hpp"
#include "snapshot_closure.hpp"
#include "snapshot_config.hpp"
#include "snapshot_write.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

std::string today_utc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

bool is_iso_date(const std::string& text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i != 4 && i != 7 && std::isdigit(static_cast<unsigned char>(text[i])) == 0) return false;
  }
  return true;
}

std::vector<const matrix::Profile*> chosen_profiles(const matrix::Matrix& matrix,
                                                    const SnapshotConfig& config) {
  std::vector<const matrix::Profile*> out;
  if (!config.profiles) {
    for (const auto& [name, profile] : matrix.profiles) out.push_back(&profile);
    return out;
  }
  for (const auto& name : *config.profiles) {
    const matrix::Profile* profile = matrix.find_profile(name);
    if (profile == nullptr) {
      throw Error(ExitCode::bad_input, "`profiles` names `" + name + "`, which is not a profile",
                  "`bevenv matrix profiles` lists the profiles; drop the name or fix its spelling");
    }
    out.push_back(profile);
  }
  return out;
}

SnapshotTarget make_target(const std::string& python, const std::string& platform,
                           const std::string& glibc) {
  TargetOverrides overrides;
  overrides.python = python;
  overrides.platform = platform;
  overrides.glibc = glibc;
  const TargetFacts facts = resolve_target(overrides, std::nullopt);
  return {facts.python, platform, facts.marker_environment(),
          index::TagRanking(index::TargetTags::from(facts.python, platform, facts.glibc))};
}

// Every configured Python and each profile's, on every configured platform.
std::vector<SnapshotTarget> targets_for(const SnapshotConfig& config,
                                        const std::vector<const matrix::Profile*>& profiles) {
  std::vector<std::string> pythons = config.pythons;
  for (const auto* profile : profiles) {
    if (std::find(pythons.begin(), pythons.end(), profile->python) == pythons.end())
      pythons.push_back(profile->python);
  }
  std::vector<SnapshotTarget> out;
  for (const auto& python : pythons) {
    for (const auto& platform : config.platforms)
      out.push_back(make_target(python, platform, config.glibc));
  }
  return out;
}

index::IndexSettings settings_for(const MatrixSnapshotOptions& options) {
  index::IndexSettings settings;
  settings.index_url = options.index_url;
  settings.find_links = options.find_links;
  settings.apply_pip_configuration(index::read_pip_configuration());
  settings.index_url = options.index_url.value_or(index::kPyPI);  // pip.conf does not move it
  settings.transport.cache_dir = index::default_cache_dir();
  return settings;
}

void ask_roots(SnapshotClosure& closure, const SnapshotConfig& config, const matrix::Matrix& matrix,
               const std::vector<const matrix::Profile*>& profiles) {
  for (const auto* profile : profiles) {
    // A profile's requirements hold for its own Python on x86_64 (the lock's default).
    const auto env = make_target(profile->python, "linux_x86_64", config.glibc).env;
    for (const auto& requirement : profile->requirements) {
      const auto holds = requirement.marker.evaluate(env);
      if (!holds || *holds) closure.ask_root(requirement, "profile `" + profile->name + "`");
    }
  }
  for (const auto& root : config.roots) closure.ask_root(root, "`matrix/snapshot.toml`");
  // Every curated release PyPI serves gets its files and hashes (setuptools 69.5.1, which no
  // dependency's newest releases reach).
  for (const auto& [name, package] : matrix.packages) {
    for (const auto& v : package.versions) {
      if (v.generated || v.version.has_local() || !v.index_url.empty() || !v.find_links.empty() ||
          v.build == matrix::BuildKind::source)
        continue;
      if (auto pin = core::Requirement::parse(name + "==" + v.version.to_string()))
        closure.ask_root(*pin, "`" + v.id() + "` (curated)");
    }
  }
  // A curated build of a release's own sdist (mmcv-full 1.7.2 compiled with MMCV_WITH_OPS=1)
  // gets that sdist's file and hash, under the curated version.
  for (const auto& [name, package] : matrix.packages) {
    for (const auto& v : package.versions) {
      const bool builds_sdist = v.build_step && v.build_step->sdist;
      if (builds_sdist && !v.generated && v.index_url.empty() && v.find_links.empty())
        closure.ask_source_sdist(v);
    }
  }
  // What a rule requires or prefers must exist to be chosen (`cython<3` for pycocotools 2.0.1).
  for (const auto& rule : matrix.rules) {
    if (rule.kind != matrix::RuleKind::conflicts) closure.ask(rule.then, "rule `" + rule.id + "`");
  }
}

}  // namespace

CommandOutput matrix_snapshot(const MatrixSnapshotOptions& options) {
  const std::string date = options.date.empty() ? today_utc() : options.date;
  if (!is_iso_date(date)) {
    throw Error(ExitCode::bad_input, "`--date`: expected YYYY-MM-DD, got `" + date + "`",
                "give the snapshot's date, e.g. `--date 2026-12-01`");
  }
  // The snapshot is how the generated layer gains a name a curated record starts to require.
  MatrixOptions matrix_options = options.matrix;
  matrix_options.known_packages_only = false;
  const matrix::Matrix matrix = load_matrix_or_throw(matrix_options);
  SnapshotConfig config = read_snapshot_config(options.config);
  if (options.max_versions) config.max_versions = *options.max_versions;
  const auto profiles = chosen_profiles(matrix, config);

  const index::IndexSettings settings = settings_for(options);
  auto reporter =
      options.progress ? index::make_stderr_reporter() : std::make_unique<index::SilentReporter>();
  index::IndexClient client(settings, reporter.get());
  SnapshotClosure closure(client, matrix, targets_for(config, profiles), config.max_versions);
  ask_roots(closure, config, matrix, profiles);
  const SnapshotResult result = closure.run();

  const SnapshotProvenance provenance{*settings.index_url, date};
  const std::filesystem::path path = options.output_dir / "pypi.toml";
  std::error_code error;
  std::filesystem::create_directories(options.output_dir, error);
  core::write_file_atomic(path, render_snapshot(result, provenance));

  CommandOutput out;
  out.add("Wrote `" + path.string() + "`: " + std::to_string(result.records.size()) +
              " releases from `" + provenance.index + "` (read " + date + ")",
          Mark::ok);
  if (!result.skipped.empty()) {
    const std::string names = quoted_list(result.skipped);
    out.add("left to the curated matrix (other sources): " + names, Mark::none, 1);
  }
  for (const auto& problem : result.problems) {
    out.add("skipped " + problem, Mark::warning, 1);
  }
  if (!result.problems.empty())
    out.hint("hint: retry; a release whose metadata cannot be read is left out");
  out.json = {{"status", "written"},
              {"path", path.string()},
              {"index", provenance.index},
              {"date", date},
              {"releases", result.records.size()},
              {"skipped", result.skipped},
              {"problems", result.problems}};
  return out;
}

}  // namespace bevenv::app
