#include "lock_index.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/util/exit_time.hpp"
#include "index_search.hpp"
#include "lock_generated.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

std::string describe(const index::Source& source) { return "`" + source.location + "`"; }

lockfiles::Source lock_source(const index::Source& source) {
  switch (source.kind) {
    case index::SourceKind::index:
      if (source.location == index::kPyPI) return {lockfiles::SourceKind::pypi, source.location};
      return {lockfiles::SourceKind::index, source.location};
    case index::SourceKind::find_links:
      return {lockfiles::SourceKind::find_links, source.location};
    case index::SourceKind::directory:
      return {lockfiles::SourceKind::path, source.location};
  }
  return {};
}

}  // namespace

std::optional<index::IndexSettings> index_settings(const LockOptions& options,
                                                   const LockInputs& /*inputs*/) {
  if (!options.index_url && options.extra_index_urls.empty() && options.find_links.empty()) {
    return std::nullopt;
  }
  index::IndexSettings settings;
  settings.index_url = options.index_url;
  settings.extra_index_urls = options.extra_index_urls;
  settings.find_links = options.find_links;
  settings.no_index = options.no_index;
  settings.apply_pip_configuration(index::read_pip_configuration());
  settings.transport.offline = options.offline;
  settings.transport.cache_dir = index::default_cache_dir();
  return settings;
}

namespace {

// Normalized name -> the request's own specifiers (profile and `--require`).
std::map<std::string, std::vector<core::SpecifierSet>> root_specifiers(const LockInputs& inputs) {
  std::map<std::string, std::vector<core::SpecifierSet>> out;
  if (inputs.profile != nullptr) {
    for (const auto& r : inputs.profile->requirements)
      out[r.normalized_name()].push_back(r.specifier);
  }
  for (const auto& u : inputs.requirements)
    out[u.requirement.normalized_name()].push_back(u.requirement.specifier);
  return out;
}

bool allowed_by(const std::vector<core::SpecifierSet>& specifiers, const core::Version& v) {
  return std::all_of(specifiers.begin(), specifiers.end(),
                     [&](const core::SpecifierSet& s) { return s.contains(v, true); });
}

// Whether a curated record can be part of this request's answer: the request's pins allow its
// version and, for each requirement it has on a pinned package, some curated version satisfies
// both. Only the pages of such records are read, so an unreachable page of another CUDA/torch
// pair (OpenMMLab publishes one per pair) neither slows nor fails the lock.
bool may_be_chosen(const LockInputs& inputs,
                   const std::map<std::string, std::vector<core::SpecifierSet>>& roots,
                   const matrix::PackageVersion& record) {
  if (const auto own = roots.find(record.name); own != roots.end()) {
    const auto version = core::Version::parse(record.install_version());
    if (!allowed_by(own->second, record.version) &&
        (!version || !allowed_by(own->second, *version)))
      return false;
  }
  for (const auto& r : record.requirements) {
    const auto pins = roots.find(r.normalized_name());
    const matrix::Package* other = inputs.matrix.find_package(r.normalized_name());
    if (pins == roots.end() || other == nullptr) continue;
    const bool some =
        std::any_of(other->versions.begin(), other->versions.end(), [&](const auto& v) {
          return r.specifier.contains(v.version, true) && allowed_by(pins->second, v.version);
        });
    if (!some) return false;
  }
  return true;
}

std::optional<index::Source> record_source(const matrix::PackageVersion& build) {
  if (!build.find_links.empty()) return index::classify_find_links(build.find_links);
  if (!build.index_url.empty()) return index::classify_index(build.index_url);
  return std::nullopt;
}

}  // namespace

std::map<std::string, std::vector<index::Source>> pinned_sources(const LockInputs& inputs) {
  std::map<std::string, std::vector<index::Source>> out;
  const auto roots = root_specifiers(inputs);
  for (const auto& [name, package] : inputs.matrix.packages) {
    std::vector<index::Source> sources;
    std::vector<index::Source> relevant;
    for (const auto& build : package.versions) {
      const std::optional<index::Source> s = record_source(build);
      if (!s) continue;
      if (std::find(sources.begin(), sources.end(), *s) == sources.end()) sources.push_back(*s);
      if (may_be_chosen(inputs, roots, build) &&
          std::find(relevant.begin(), relevant.end(), *s) == relevant.end())
        relevant.push_back(*s);
    }
    if (!sources.empty()) out[name] = relevant.empty() ? sources : relevant;
  }
  return out;
}

std::unique_ptr<IndexSession> open_index(const LockOptions& options, const LockInputs& inputs) {
  auto settings = index_settings(options, inputs);
  if (!settings) return nullptr;
  auto session = std::make_unique<IndexSession>();
  session->reporter = options.index_progress ? index::make_stderr_reporter()
                                             : std::make_unique<index::SilentReporter>();
  session->client = std::make_unique<index::IndexClient>(*settings, session->reporter.get());
  session->source = session->client.get();
  session->pinned = pinned_sources(inputs);
  return session;
}

// The search's maps of candidates are left to the end of the process (util::done_with): freeing
// them one node at a time took a twelfth of a warm lock of 100k versions.
void add_index_records(IndexSession& session, const LockInputs& inputs, Translation& translation) {
  auto search = std::make_unique<IndexSearch>(session, inputs, translation);
  search->run();
  search->finish();
  util::done_with(std::move(search));
}

std::variant<solver::Solution, solver::Unsolvable> solve_with_index(
    IndexSession& session, const LockInputs& inputs, Translation& translation,
    const std::function<void()>& before_solving) {
  auto search = std::make_unique<IndexSearch>(session, inputs, translation);
  search->discover();
  search->read_newest();
  if (before_solving) before_solving();
  // Each solve starts from the request's own preferences; solve_with_preferences adds its own.
  const auto preferred = translation.request.preferred;
  for (;;) {
    translation.request.preferred = preferred;
    auto result = solve_with_preferences(translation, inputs);
    ++session.solves;
    const auto* solution = std::get_if<solver::Solution>(&result);
    const bool read_more =
        solution != nullptr ? search->read_chosen(*solution) : search->read_all();
    if (!read_more) {
      search->finish();
      util::done_with(std::move(search));
      return result;
    }
  }
}

namespace {

struct Pick {
  lockfiles::Package* package = nullptr;
  const matrix::PackageVersion* curated = nullptr;
  index::Artifact artifact;
  index::Source source;
};

}  // namespace

// The sdist travels as data: the URL a page served never becomes part of a command.
lockfiles::BuildStep sdist_build(const lockfiles::Package& p, const lockfiles::Artifact& sdist) {
  lockfiles::BuildStep step;
  step.name = core::normalize_name(p.name) + "-sdist";
  step.package = p.name;
  step.after = p.dependencies;
  step.source = sdist;
  return step;
}

void attach_artifacts(IndexSession& session, const LockInputs& inputs, lockfiles::Lockfile& lock) {
  const index::TagRanking ranking = ranking_for(inputs);
  std::vector<Pick> picks;
  std::vector<std::string> to_list;
  for (auto& p : lock.packages) {
    if (is_virtual(p.name) || p.name == "python") continue;
    const matrix::PackageVersion* curated = matrix_record_of(inputs.matrix, p);
    if (curated != nullptr && curated->build == matrix::BuildKind::source) continue;
    picks.push_back({&p, curated, {}, {}});
    to_list.push_back(core::normalize_name(p.name));
  }
  list_missing(session, to_list);

  for (Pick& pick : picks) {
    const std::string name = core::normalize_name(pick.package->name);
    const index::Listing& listing = listing_with_source(session, name);
    core::Version wanted_version = core::Version::parse(pick.package->version).value();
    std::vector<const index::Artifact*> files;
    for (const auto& a : listing.artifacts) {
      if (a.version == wanted_version) files.push_back(&a);
    }
    // A curated hash names the one file the matrix vouches for.
    if (pick.curated != nullptr && !pick.curated->sha256.empty()) {
      for (const index::Artifact* a : files) {
        if (a->sha256 == pick.curated->sha256) files = {a};
      }
    }
    const index::Artifact* best = best_artifact(files, ranking, inputs.target.python);
    if (best == nullptr) {
      throw Error(ExitCode::failure,
                  "no file of `" + name + " " + pick.package->version + "` on " +
                      describe(*listing.source) + " fits " + inputs.target.describe(),
                  "pin another version with `--require '" + name +
                      "==VERSION'`, or add a source "
                      "that has it with `--find-links URL|DIR`");
    }
    pick.artifact = *best;
    pick.source = *listing.source;
  }

  std::vector<index::Artifact> incomplete;
  for (const Pick& pick : picks) incomplete.push_back(pick.artifact);
  auto completed = session.source->complete(std::move(incomplete));
  for (std::size_t i = 0; i < picks.size(); ++i) {
    Pick& pick = picks[i];
    if (!completed[i]) {
      fail_reading("cannot fetch `" + pick.artifact.filename + "`: ", completed[i].error(),
                   "retry; a hash mismatch means the source serves other bytes than it published");
    }
    const index::Artifact& a = *completed[i];
    if (pick.curated != nullptr && !pick.curated->sha256.empty() &&
        a.sha256 != pick.curated->sha256) {
      throw Error(ExitCode::failure,
                  "sha256 mismatch for `" + a.url + "`: the matrix records " +
                      pick.curated->sha256 + ", the source serves " + a.sha256,
                  "check that " + describe(pick.source) + " mirrors the real file");
    }
    lockfiles::Artifact artifact;
    artifact.url = a.url;
    artifact.filename = a.filename;
    artifact.sha256 = a.sha256;
    artifact.size = a.size;
    pick.package->artifacts = {artifact};
    pick.package->source = lock_source(pick.source);
    if (a.kind == index::ArtifactKind::sdist)
      lock.builds.push_back(sdist_build(*pick.package, artifact));
  }
  lockfiles::canonicalize(lock);
}

}  // namespace bevenv::app
