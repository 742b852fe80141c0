#include "lock_index.hpp"

#include <algorithm>
#include <set>

#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

const char* kSourcesHint =
    "check the URL, or add the source with `--extra-index-url URL` or `--find-links URL|DIR`; "
    "`--offline` uses the download cache only";

bool is_curated(const LockInputs& inputs, const std::string& name) {
  return inputs.matrix.find_package(name) != nullptr;
}

std::string describe(const index::Source& source) { return "`" + source.location + "`"; }

// The artifact of one release that fits the target best: a wheel by tag rank, else an sdist.
const index::Artifact* best_artifact(const std::vector<const index::Artifact*>& files,
                                     const index::TagRanking& ranking,
                                     const core::Version& python) {
  const index::Artifact* best = nullptr;
  std::size_t best_rank = 0;
  const index::Artifact* sdist = nullptr;
  for (const index::Artifact* a : files) {
    if (a->yanked || !a->requires_python.contains(python, true)) continue;
    if (a->kind == index::ArtifactKind::sdist) {
      if (sdist == nullptr) sdist = a;
      continue;
    }
    const auto rank = ranking.rank(*a->wheel);
    if (rank && (best == nullptr || *rank < best_rank)) {
      best = a;
      best_rank = *rank;
    }
  }
  return best != nullptr ? best : sdist;
}

// Releases of a listing, newest first, each with the artifact that fits the target.
std::vector<std::pair<core::Version, const index::Artifact*>> releases(
    const index::Listing& listing, const index::TagRanking& ranking, const core::Version& python) {
  std::map<core::Version, std::vector<const index::Artifact*>> by_version;
  for (const auto& a : listing.artifacts) by_version[a.version].push_back(&a);
  std::vector<std::pair<core::Version, const index::Artifact*>> out;
  for (auto it = by_version.rbegin(); it != by_version.rend(); ++it) {
    if (const auto* best = best_artifact(it->second, ranking, python))
      out.emplace_back(it->first, best);
  }
  return out;
}

struct Wanted {
  std::vector<core::SpecifierSet> specifiers;
  std::set<std::string> extras;
};

struct Fetched {
  index::Artifact artifact;
  index::CoreMetadata metadata;
  index::Source source;
};

// Requires-Dist entries that apply on the target, with the extras asked of the package.
std::vector<core::Requirement> applicable(const index::CoreMetadata& metadata,
                                          const std::set<std::string>& extras,
                                          const core::MarkerEnvironment& base) {
  std::vector<core::Requirement> out;
  for (const auto& requirement : metadata.requires_dist) {
    bool applies = false;
    core::MarkerEnvironment env = base;
    env.values["extra"] = "";
    if (auto r = requirement.marker.evaluate(env); r && *r) applies = true;
    for (const auto& extra : extras) {
      if (applies) break;
      env.values["extra"] = extra;
      if (auto r = requirement.marker.evaluate(env); r && *r) applies = true;
    }
    if (applies) out.push_back(requirement);
  }
  return out;
}

void want(std::map<std::string, Wanted>& wanted, const std::string& name,
          const core::SpecifierSet& specifier, const std::vector<std::string>& extras = {}) {
  if (is_virtual(name)) return;
  Wanted& w = wanted[name];
  const std::string text = specifier.to_string();
  const bool known =
      std::any_of(w.specifiers.begin(), w.specifiers.end(),
                  [&](const core::SpecifierSet& s) { return s.to_string() == text; });
  if (!known) w.specifiers.push_back(specifier);
  w.extras.insert(extras.begin(), extras.end());
}

void list_missing(IndexSession& session, const std::vector<std::string>& names) {
  std::vector<std::string> missing;
  for (const auto& name : names) {
    if (session.listings.count(name) == 0) missing.push_back(name);
  }
  if (missing.empty()) return;
  auto listed = session.client->list(missing, session.pinned);
  for (auto& [name, listing] : listed) {
    if (!listing) {
      throw Error(ExitCode::failure, "cannot read package `" + name + "`: " + listing.error(),
                  kSourcesHint);
    }
    session.listings.emplace(name, std::move(listing).value());
  }
}

index::TagRanking ranking_for(const LockInputs& inputs) {
  return index::TagRanking(
      index::TargetTags::from(inputs.target.python, inputs.target.platform, inputs.target.glibc));
}

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

std::unique_ptr<IndexSession> open_index(const LockOptions& options, const LockInputs& inputs) {
  auto settings = index_settings(options, inputs);
  if (!settings) return nullptr;
  auto session = std::make_unique<IndexSession>();
  session->reporter = options.index_progress ? index::make_stderr_reporter()
                                             : std::make_unique<index::SilentReporter>();
  session->client = std::make_unique<index::IndexClient>(*settings, session->reporter.get());
  // A curated package comes only from the sources its matrix records name.
  for (const auto& [name, package] : inputs.matrix.packages) {
    std::vector<index::Source> sources;
    for (const auto& build : package.versions) {
      std::optional<index::Source> s;
      if (!build.find_links.empty())
        s = index::classify_find_links(build.find_links);
      else if (!build.index_url.empty())
        s = index::classify_index(build.index_url);
      if (s && std::find(sources.begin(), sources.end(), *s) == sources.end())
        sources.push_back(*s);
    }
    if (!sources.empty()) session->pinned[name] = std::move(sources);
  }
  return session;
}

void add_index_records(IndexSession& session, const LockInputs& inputs, Translation& translation) {
  const core::MarkerEnvironment env = inputs.target.marker_environment();
  const index::TagRanking ranking = ranking_for(inputs);
  const std::size_t per_requirement = session.client->settings().candidates_per_package;

  std::map<std::string, Wanted> wanted;
  for (const auto& d : translation.request.requirements) want(wanted, d.name, d.specifier);
  if (inputs.profile != nullptr) {
    for (const auto& r : inputs.profile->requirements) {
      want(wanted, r.normalized_name(), r.specifier, r.extras);
    }
  }
  for (const auto& u : inputs.requirements) {
    want(wanted, u.requirement.normalized_name(), u.requirement.specifier, u.requirement.extras);
  }

  std::map<std::string, std::map<core::Version, Fetched>> fetched;
  std::set<std::string> expanded_curated;
  while (true) {
    // Curated packages: their matrix records say what they need.
    bool grew = false;
    for (const auto& [name, w] : std::map<std::string, Wanted>(wanted)) {
      if (!is_curated(inputs, name) || !expanded_curated.insert(name).second) continue;
      for (const auto id : translation.database.find(name)) {
        for (const auto& d : translation.database.record(id).requirements) {
          if (!wanted.count(d.name)) grew = true;
          want(wanted, d.name, d.specifier);
        }
      }
    }
    std::vector<std::string> uncurated;
    for (const auto& [name, w] : wanted) {
      if (!is_curated(inputs, name)) uncurated.push_back(name);
    }
    list_missing(session, uncurated);

    std::vector<index::Artifact> to_read;
    std::vector<std::pair<std::string, core::Version>> slots;
    for (const auto& name : uncurated) {
      const index::Listing& listing = session.listings.at(name);
      if (!listing.source) {
        throw Error(ExitCode::failure, "no source lists package `" + name + "`", kSourcesHint);
      }
      const auto all = releases(listing, ranking, inputs.target.python);
      std::set<core::Version> picks;
      for (const auto& specifier : wanted[name].specifiers) {
        std::size_t taken = 0;
        for (const auto& [version, artifact] : all) {
          if (taken == per_requirement) break;
          if (!specifier.contains(version)) continue;
          picks.insert(version);
          ++taken;
        }
      }
      for (const auto& version : picks) {
        if (fetched[name].count(version) > 0) continue;
        const auto it =
            std::find_if(all.begin(), all.end(), [&](const auto& r) { return r.first == version; });
        to_read.push_back(*it->second);
        slots.emplace_back(name, version);
      }
    }
    auto metadata = session.client->metadata(to_read);
    for (std::size_t i = 0; i < metadata.size(); ++i) {
      if (!metadata[i]) {
        throw Error(ExitCode::failure,
                    "cannot read the metadata of `" + slots[i].first + " " +
                        slots[i].second.to_string() + "`: " + metadata[i].error(),
                    kSourcesHint);
      }
      const auto& [name, version] = slots[i];
      fetched[name].emplace(version, Fetched{to_read[i], std::move(metadata[i]).value(),
                                             *session.listings.at(name).source});
    }
    // Uncurated packages: their metadata says what they need, with the extras asked of them.
    for (const auto& [name, versions] : fetched) {
      for (const auto& [version, f] : versions) {
        for (const auto& r : applicable(f.metadata, wanted[name].extras, env)) {
          const std::string dep = r.normalized_name();
          const std::size_t before =
              wanted.count(dep) ? wanted[dep].specifiers.size() + wanted[dep].extras.size() : 0;
          want(wanted, dep, r.specifier, r.extras);
          if (wanted[dep].specifiers.size() + wanted[dep].extras.size() != before) grew = true;
        }
      }
    }
    if (!grew && to_read.empty()) break;
  }

  for (const auto& [name, versions] : fetched) {
    for (const auto& [version, f] : versions) {
      matrix::PackageVersion build;
      build.name = name;
      build.version = version;
      build.requirements = applicable(f.metadata, wanted[name].extras, env);
      build.python = f.metadata.requires_python;
      if (f.source.kind == index::SourceKind::index)
        build.index_url = f.source.location;
      else
        build.find_links = f.source.location;
      build.artifact_url = f.artifact.url;
      build.sha256 = f.artifact.sha256;
      build.build = f.artifact.kind == index::ArtifactKind::wheel ? matrix::BuildKind::wheel
                                                                  : matrix::BuildKind::sdist;
      build.deps_complete = true;
      build.sources = {"metadata of `" + f.artifact.filename + "`"};
      session.fetched.push_back(std::move(build));
      const matrix::PackageVersion& stored = session.fetched.back();

      solver::PackageRecord record;
      record.name = name;
      record.version = version;
      record.source = f.source.location;
      const std::string self = name + " " + version.to_string();
      for (const auto& r : stored.requirements) {
        record.requirements.push_back({r.normalized_name(), r.specifier, self});
      }
      translation.records[translation.database.add(std::move(record))] = &stored;
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

const matrix::PackageVersion* curated_record(const LockInputs& inputs,
                                             const lockfiles::Package& p) {
  const matrix::Package* package = inputs.matrix.find_package(p.name);
  if (package == nullptr) return nullptr;
  for (const auto& build : package->versions) {
    if (build.install_version() == p.version) return &build;
  }
  return nullptr;
}

lockfiles::BuildStep sdist_build(const lockfiles::Package& p, const index::Artifact& sdist) {
  lockfiles::BuildStep step;
  step.name = p.name + "-sdist";
  step.after = p.dependencies;
  step.commands.push_back("pip install --no-deps --no-build-isolation " + sdist.url);
  return step;
}

}  // namespace

void attach_artifacts(IndexSession& session, const LockInputs& inputs, lockfiles::Lockfile& lock) {
  const index::TagRanking ranking = ranking_for(inputs);
  std::vector<Pick> picks;
  std::vector<std::string> to_list;
  for (auto& p : lock.packages) {
    if (is_virtual(p.name) || p.name == "python") continue;
    const matrix::PackageVersion* curated = curated_record(inputs, p);
    if (curated != nullptr && curated->build == matrix::BuildKind::source) continue;
    picks.push_back({&p, curated, {}, {}});
    to_list.push_back(core::normalize_name(p.name));
  }
  list_missing(session, to_list);

  for (Pick& pick : picks) {
    const std::string name = core::normalize_name(pick.package->name);
    const index::Listing& listing = session.listings.at(name);
    if (!listing.source) {
      throw Error(ExitCode::failure, "no source lists package `" + name + "`", kSourcesHint);
    }
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
  auto completed = session.client->complete(std::move(incomplete));
  for (std::size_t i = 0; i < picks.size(); ++i) {
    Pick& pick = picks[i];
    if (!completed[i]) {
      throw Error(ExitCode::failure,
                  "cannot fetch `" + pick.artifact.filename + "`: " + completed[i].error(),
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
    if (a.kind == index::ArtifactKind::sdist) lock.builds.push_back(sdist_build(*pick.package, a));
  }
  lockfiles::canonicalize(lock);
}

}  // namespace bevenv::app
