#include "lock_index.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

const char* kSourcesHint =
    "check the URL, or add the source with `--extra-index-url URL` or `--find-links URL|DIR`; "
    "`--offline` uses the download cache only";

// An index error brings its own hint when it has one (a deadline, a size limit); else `fallback`.
[[noreturn]] void fail(const std::string& context, const std::string& error,
                       const std::string& fallback) {
  auto [message, hint] = index::split_hint(error);
  throw Error(ExitCode::failure, context + message, hint.empty() ? fallback : hint);
}

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

// What the lock asks of one uncurated package so far: root specifiers (the request, the
// profile, `--require`) and the specifiers of its dependents.
struct Wanted {
  std::vector<core::SpecifierSet> root_specifiers;
  std::vector<core::SpecifierSet> specifiers;  // from dependents
  std::set<std::string> root_texts, texts;     // canonical texts of the two lists
  std::set<std::string> extras;
  bool prereleases = false;         // the request allows pre-releases of it
  std::size_t extras_expanded = 0;  // extras the versions read so far were expanded with
};

struct Fetched {
  index::Artifact artifact;
  index::CoreMetadata metadata;
  index::Source source;
};

// Requires-Dist entries that apply on the target, with the extras asked of the package.
std::vector<core::Requirement> applicable(const index::CoreMetadata& metadata,
                                          const std::set<std::string>& extras,
                                          core::MarkerEnvironment& env) {
  std::vector<core::Requirement> out;
  for (const auto& requirement : metadata.requires_dist) {
    bool applies = false;
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

// Adds `specifier` unless an equal one (by canonical text) is there already; true when added.
bool add_unique(std::vector<core::SpecifierSet>& specifiers, std::set<std::string>& texts,
                const core::SpecifierSet& specifier) {
  if (!texts.insert(specifier.to_string()).second) return false;
  specifiers.push_back(specifier);
  return true;
}

// Records what is asked of `name`; true when that widens or narrows its candidates or extras.
bool want(std::map<std::string, Wanted>& wanted, const std::string& name,
          const core::SpecifierSet& specifier, const std::vector<std::string>& extras, bool root) {
  if (is_virtual(name)) return false;
  const bool fresh = wanted.count(name) == 0;
  Wanted& w = wanted[name];
  bool changed = root ? add_unique(w.root_specifiers, w.root_texts, specifier)
                      : add_unique(w.specifiers, w.texts, specifier);
  for (const auto& extra : extras) changed = w.extras.insert(extra).second || changed;
  return changed || fresh;
}

using Release = std::pair<core::Version, const index::Artifact*>;

// The versions the solver may need to see: every release the specifiers allow (pre-releases
// where the request allows them, or where a specifier has no final release), so the lock never
// depends on how many versions were read.
std::set<std::size_t> candidates(const std::vector<Release>& releases, const Wanted& w) {
  auto matching = [&](const core::SpecifierSet& specifier) {
    std::set<std::size_t> out;
    const std::optional<bool> pre = w.prereleases ? std::optional<bool>(true) : std::nullopt;
    for (std::size_t i = 0; i < releases.size(); ++i) {
      if (specifier.contains(releases[i].first, pre)) out.insert(i);
    }
    if (out.empty() && !w.prereleases) {
      for (std::size_t i = 0; i < releases.size(); ++i) {
        if (specifier.contains(releases[i].first, true)) out.insert(i);
      }
    }
    return out;
  };
  // A root requirement holds whichever dependents are chosen, so for a root package every
  // release it allows is a candidate; another package's candidates are what any dependent
  // allows.
  std::set<std::size_t> out;
  if (!w.root_specifiers.empty()) {
    for (std::size_t i = 0; i < releases.size(); ++i) out.insert(i);
    for (const auto& root : w.root_specifiers) {
      const auto keep = matching(root);
      std::erase_if(out, [&](std::size_t i) { return keep.count(i) == 0; });
    }
  } else if (w.specifiers.empty()) {
    for (std::size_t i = 0; i < releases.size(); ++i) out.insert(i);
  } else {
    for (const auto& specifier : w.specifiers) out.merge(matching(specifier));
  }
  return out;
}

// The user's find-links pages and directories, asked for a curated package whose own page could
// not be read: a mirror of that page. Indexes are not asked, so PyPI's sdist never stands in for
// a CUDA wheel the matrix takes from its own page.
std::optional<core::Expected<index::Listing, std::string>> from_page_mirrors(
    IndexSession& session, const std::string& name) {
  std::vector<index::Source> mirrors;
  for (const auto& s : session.client->sources())
    if (s.kind != index::SourceKind::index) mirrors.push_back(s);
  if (mirrors.empty()) return std::nullopt;
  auto listed = session.client->list({name}, {{name, mirrors}});
  auto& found = listed.at(name);
  if (!found || !found->source) return std::nullopt;
  return std::move(found);
}

void list_missing(IndexSession& session, const std::vector<std::string>& names) {
  std::vector<std::string> missing;
  for (const auto& name : names) {
    if (session.listings.count(name) == 0) missing.push_back(name);
  }
  if (missing.empty()) return;
  auto listed = session.client->list(missing, session.pinned);
  for (auto& [name, listing] : listed) {
    if (!listing && session.pinned.contains(name)) {
      if (auto mirror = from_page_mirrors(session, name)) listing = std::move(*mirror);
    }
    if (!listing) {
      const std::string hint =
          session.pinned.contains(name)
              ? "the matrix takes `" + name +
                    "` from that page: pass a mirror of it with `--find-links URL|DIR`, which "
                    "stands in for it, or leave out the index options to lock from the embedded "
                    "matrix"
              : std::string(kSourcesHint);
      fail("cannot read package `" + name + "`: ", listing.error(), hint);
    }
    session.listings.emplace(name, std::move(listing).value());
  }
}

index::TagRanking ranking_for(const LockInputs& inputs) {
  return index::TagRanking(
      index::TargetTags::from(inputs.target.python, inputs.target.platform, inputs.target.glibc));
}

// The metadata to read to complete a curated record: the wheel that fits the target of its
// version, where its metadata is cheap (PEP 658, on disk, byte ranges, the cache). Where it
// would cost a whole download (a server that ignores ranges, in front of multi-gigabyte torch
// wheels) the matrix's list stands as it is.
struct Completion {
  std::string name;
  solver::RecordId record = 0;
  index::Artifact artifact;
};

struct CompletionTarget {
  std::string name;
  solver::RecordId record = 0;
  const matrix::PackageVersion* build = nullptr;
};

std::vector<Completion> completion_reads(IndexSession& session, const LockInputs& inputs,
                                         const index::TagRanking& ranking,
                                         const std::vector<CompletionTarget>& targets) {
  std::vector<std::string> names;
  for (const auto& t : targets) {
    if (session.listings.count(t.name) == 0 &&
        std::find(names.begin(), names.end(), t.name) == names.end())
      names.push_back(t.name);
  }
  // A source that cannot be read leaves the record as the matrix has it; attach_artifacts()
  // reports the source if the package is chosen.
  if (!names.empty()) {
    for (auto& [name, listing] : session.client->list(names, session.pinned)) {
      if (listing) session.listings.emplace(name, std::move(listing).value());
    }
  }
  std::vector<Completion> out;
  for (const auto& t : targets) {
    const auto listed = session.listings.find(t.name);
    if (listed == session.listings.end() || !listed->second.source) continue;
    const auto version = core::Version::parse(t.build->install_version());
    if (!version) continue;
    std::vector<const index::Artifact*> files;
    for (const auto& a : listed->second.artifacts) {
      if (a.version == *version) files.push_back(&a);
    }
    const index::Artifact* best = best_artifact(files, ranking, inputs.target.python);
    if (best == nullptr || best->kind != index::ArtifactKind::wheel) continue;
    out.push_back({t.name, t.record, *best});
  }
  return out;
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

std::unique_ptr<IndexSession> open_index(const LockOptions& options, const LockInputs& inputs) {
  auto settings = index_settings(options, inputs);
  if (!settings) return nullptr;
  auto session = std::make_unique<IndexSession>();
  session->reporter = options.index_progress ? index::make_stderr_reporter()
                                             : std::make_unique<index::SilentReporter>();
  session->client = std::make_unique<index::IndexClient>(*settings, session->reporter.get());
  // A curated package comes only from the sources its matrix records name: those of the records
  // this request may choose, or (when none may) all of them, so the solver can explain.
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
    if (!sources.empty()) session->pinned[name] = relevant.empty() ? sources : relevant;
  }
  return session;
}

void add_index_records(IndexSession& session, const LockInputs& inputs, Translation& translation) {
  core::MarkerEnvironment env = inputs.target.marker_environment();
  const index::TagRanking ranking = ranking_for(inputs);

  std::map<std::string, Wanted> wanted;
  std::set<std::string> dirty;  // packages whose candidates or extras may have changed
  auto ask = [&](const std::string& name, const core::SpecifierSet& specifier,
                 const std::vector<std::string>& extras, bool root) {
    if (want(wanted, name, specifier, extras, root)) dirty.insert(name);
  };
  for (const auto& d : translation.request.requirements) ask(d.name, d.specifier, {}, true);
  if (inputs.profile != nullptr) {
    for (const auto& r : inputs.profile->requirements)
      ask(r.normalized_name(), r.specifier, r.extras, true);
  }
  for (const auto& u : inputs.requirements) {
    ask(u.requirement.normalized_name(), u.requirement.specifier, u.requirement.extras, true);
  }

  std::map<std::string, std::map<core::Version, Fetched>> fetched;
  std::map<std::string, std::vector<Release>> releases_of;  // newest first, once per package
  std::set<std::string> expanded_curated;
  std::vector<CompletionTarget> to_complete;
  std::map<solver::RecordId, std::vector<solver::Dependency>> completed;
  // Breadth first: each round lists the packages asked for, reads the metadata of their new
  // candidates in one parallel batch, and asks for what those need.
  while (!dirty.empty()) {
    const std::set<std::string> round = std::exchange(dirty, {});
    std::vector<std::string> uncurated;
    for (const auto& name : round) {
      if (!is_curated(inputs, name)) {
        uncurated.push_back(name);
        continue;
      }
      // Curated packages: their matrix records say what they need; records whose list is
      // not complete are completed from their metadata below.
      if (!expanded_curated.insert(name).second) continue;
      for (const auto id : translation.database.find(name)) {
        for (const auto& d : translation.database.record(id).requirements)
          ask(d.name, d.specifier, {}, false);
        const auto it = translation.records.find(id);
        if (it != translation.records.end() && !it->second->deps_complete &&
            it->second->build != matrix::BuildKind::source) {
          to_complete.push_back({name, id, it->second});
        }
      }
    }
    list_missing(session, uncurated);
    const auto completions = completion_reads(session, inputs, ranking, to_complete);
    to_complete.clear();

    std::vector<index::Artifact> to_read;
    std::vector<std::pair<std::string, core::Version>> slots;
    std::vector<std::string> reexpand;  // already read, asked for more extras
    for (const auto& name : uncurated) {
      const index::Listing& listing = session.listings.at(name);
      if (!listing.source) {
        throw Error(ExitCode::failure, "no source lists package `" + name + "`", kSourcesHint);
      }
      auto [it, inserted] = releases_of.try_emplace(name);
      if (inserted) it->second = releases(listing, ranking, inputs.target.python);
      Wanted& w = wanted.at(name);
      w.prereleases = w.prereleases || translation.request.allow_prereleases ||
                      translation.request.allow_prereleases_for.count(name) > 0;
      auto& have = fetched[name];
      if (!have.empty() && w.extras.size() != w.extras_expanded) reexpand.push_back(name);
      w.extras_expanded = w.extras.size();
      for (const std::size_t i : candidates(it->second, w)) {
        const auto& [version, artifact] = it->second[i];
        if (have.count(version) > 0) continue;
        to_read.push_back(*artifact);
        slots.emplace_back(name, version);
      }
    }
    std::vector<index::Artifact> to_complete_from;
    for (const auto& c : completions) to_complete_from.push_back(c.artifact);
    auto completing = session.client->metadata(to_complete_from, index::MetadataCost::cheap_only);
    auto metadata = session.client->metadata(to_read);
    for (std::size_t i = 0; i < completing.size(); ++i) {
      const Completion& c = completions[i];
      if (!completing[i]) continue;  // not cheap: the matrix's list stands
      const auto& read = *completing[i];
      if (!read) {
        fail("cannot read the metadata of `" + c.artifact.filename + "`: ", read.error(),
             kSourcesHint);
      }
      // The matrix wins where it speaks: only requirements on names it does not mention.
      std::set<std::string> spoken;
      for (const auto& d : translation.database.record(c.record).requirements)
        spoken.insert(d.name);
      for (const auto& r : applicable(*read, wanted.at(c.name).extras, env)) {
        const std::string dep = r.normalized_name();
        if (spoken.count(dep) > 0 || is_virtual(dep)) continue;
        completed[c.record].push_back(
            {dep, r.specifier, "metadata of `" + c.artifact.filename + "`"});
        ask(dep, r.specifier, r.extras, false);
      }
    }
    for (std::size_t i = 0; i < metadata.size(); ++i) {
      // An archive that is no sdist (no PKG-INFO, as some 2012 uploads) cannot say what it
      // needs: that one release is no candidate, and the lock says so.
      if (!metadata[i] && to_read[i].kind == index::ArtifactKind::sdist &&
          metadata[i].error().find("has no `PKG-INFO`") != std::string::npos) {
        session.skipped.push_back("`" + slots[i].first + " " + slots[i].second.to_string() +
                                  "`: `" + to_read[i].filename + "` has no PKG-INFO");
        continue;
      }
      if (!metadata[i]) {
        fail("cannot read the metadata of `" + slots[i].first + " " + slots[i].second.to_string() +
                 "`: ",
             metadata[i].error(), kSourcesHint);
      }
      const auto& [name, version] = slots[i];
      fetched[name].emplace(version, Fetched{to_read[i], std::move(metadata[i]).value(),
                                             *session.listings.at(name).source});
    }
    // Uncurated packages: their metadata says what they need, with the extras asked of them.
    auto expand = [&](const std::string& name, const Fetched& f) {
      for (const auto& r : applicable(f.metadata, wanted.at(name).extras, env))
        ask(r.normalized_name(), r.specifier, r.extras, false);
    };
    for (const auto& name : reexpand) {
      for (const auto& [version, f] : fetched.at(name)) expand(name, f);
    }
    for (const auto& [name, version] : slots) {
      const auto& have = fetched[name];
      if (const auto it = have.find(version); it != have.end()) expand(name, it->second);
    }
  }

  for (auto& [record, requirements] : completed) {
    translation.database.add_requirements(record, std::move(requirements));
  }

  for (const auto& [name, versions] : fetched) {
    for (const auto& [version, f] : versions) {
      matrix::PackageVersion build;
      build.name = name;
      build.version = version;
      build.requirements = applicable(f.metadata, wanted.at(name).extras, env);
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
  // The variant too: OpenMMLab's wheels and the source build of mmcv-full 1.6.0 all install
  // as `1.6.0`.
  for (const auto& build : package->versions) {
    if (build.install_version() == p.version && build.version.local_string() == p.variant)
      return &build;
  }
  return nullptr;
}

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
      fail("cannot fetch `" + pick.artifact.filename + "`: ", completed[i].error(),
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
