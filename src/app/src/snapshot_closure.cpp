#include "snapshot_closure.hpp"

#include <algorithm>
#include <utility>

#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

const char* kSourceHint =
    "check the name and the source; `--index-url URL` and `--find-links URL|DIR` choose where "
    "the snapshot reads";

}  // namespace

SnapshotClosure::SnapshotClosure(index::IndexClient& client, const matrix::Matrix& matrix,
                                 std::vector<SnapshotTarget> targets, std::size_t max_versions)
    : client_(client), matrix_(matrix), targets_(std::move(targets)), max_versions_(max_versions) {
  for (const auto& target : targets_) pythons_.insert(target.python);
}

void SnapshotClosure::ask(const core::Requirement& requirement, const std::string& asked_by) {
  if (!requirement.url.empty()) return;  // a direct URL is no index's business
  ask(requirement.normalized_name(), requirement.specifier, requirement.extras, asked_by, false);
}

void SnapshotClosure::ask_root(const core::Requirement& requirement, const std::string& asked_by) {
  if (!requirement.url.empty()) return;
  ask(requirement.normalized_name(), requirement.specifier, requirement.extras, asked_by, true);
}

void SnapshotClosure::ask(const std::string& name, const core::SpecifierSet& specifier,
                          const std::vector<std::string>& extras, const std::string& asked_by,
                          bool root) {
  if (served_elsewhere(name)) {
    follow_curated(name);
    // Its PyPI builds that curated records pin still get their files and hashes (torchaudio
    // 0.9.1 beside its CUDA builds); nothing else of the name is read.
    if (!pins_curated_pypi_build(name, specifier)) {
      skipped_.insert(name);
      return;
    }
  }
  auto [it, inserted] = wanted_.try_emplace(name);
  Wanted& w = it->second;
  if (inserted) w.asked_by = asked_by;
  const std::string text = specifier.to_string();
  bool changed = w.specifiers.emplace(text, specifier).second;
  if (root) changed = w.root_specifiers.insert(text).second || changed;
  for (const auto& extra : extras) changed = w.extras.insert(extra).second || changed;
  if (changed) dirty_.insert(name);
}

// torch's CUDA builds and mmcv-full's OpenMMLab pages are the curated matrix's: the snapshot
// reads PyPI, whose files of those names are other builds (CPU wheels, bare sdists).
bool SnapshotClosure::served_elsewhere(const std::string& name) const {
  const matrix::Package* package = matrix_.find_package(name);
  if (package == nullptr) return false;
  return std::any_of(package->versions.begin(), package->versions.end(),
                     [](const auto& v) { return !v.index_url.empty() || !v.find_links.empty(); });
}

// `==V` where V is a curated record of `name` that PyPI serves (no local label, index or
// find-links, not a source build).
bool SnapshotClosure::pins_curated_pypi_build(const std::string& name,
                                              const core::SpecifierSet& specifier) const {
  const matrix::Package* package = matrix_.find_package(name);
  if (package == nullptr) return false;
  return std::any_of(package->versions.begin(), package->versions.end(), [&](const auto& v) {
    return !v.generated && !v.version.has_local() && v.index_url.empty() && v.find_links.empty() &&
           v.build != matrix::BuildKind::source &&
           specifier.to_string() == "==" + v.version.to_string();
  });
}

// A name the snapshot leaves to the curated matrix still needs what its records require.
void SnapshotClosure::follow_curated(const std::string& name) {
  const matrix::Package* package = matrix_.find_package(name);
  for (const auto& build : package->versions) {
    if (!followed_.insert(build.id()).second) continue;
    for (const auto& requirement : build.requirements) {
      if (applies(requirement, {})) ask(requirement, "`" + build.id() + "` (curated)");
    }
  }
}

bool SnapshotClosure::applies(const core::Requirement& r,
                              const std::set<std::string>& extras) const {
  return std::any_of(pythons_.begin(), pythons_.end(),
                     [&](const core::Version& python) { return applies_on(r, extras, python); });
}

bool SnapshotClosure::applies_on(const core::Requirement& r, const std::set<std::string>& extras,
                                 const core::Version& python) const {
  for (const auto& target : targets_) {
    if (target.python != python) continue;
    core::MarkerEnvironment env = target.env;
    env.values["extra"] = "";
    if (auto holds = r.marker.evaluate(env); holds && *holds) return true;
    for (const auto& extra : extras) {
      env.values["extra"] = extra;
      if (auto holds = r.marker.evaluate(env); holds && *holds) return true;
    }
  }
  return false;
}

// A file worth recording: not yanked, for a target's Python, and a wheel for a target or an sdist.
bool SnapshotClosure::usable(const index::Artifact& a) const {
  if (a.yanked) return false;
  return std::any_of(targets_.begin(), targets_.end(), [&](const SnapshotTarget& t) {
    if (!a.requires_python.contains(t.python, true)) return false;
    return a.kind == index::ArtifactKind::sdist || t.ranking.rank(*a.wheel).has_value();
  });
}

// A file of the release fits a target of this Python (the files kept are usable on some target).
bool SnapshotClosure::usable_for(const std::vector<index::Artifact>& files,
                                 const core::Version& python) const {
  return std::any_of(files.begin(), files.end(), [&](const index::Artifact& a) {
    if (!a.requires_python.contains(python, true)) return false;
    if (a.kind == index::ArtifactKind::sdist) return true;
    return std::any_of(targets_.begin(), targets_.end(), [&](const SnapshotTarget& t) {
      return t.python == python && t.ranking.rank(*a.wheel).has_value();
    });
  });
}

// The newest `max_versions_` releases each specifier allows, every one a root's specifier allows
// (the era a stack may move in); pre-releases only where a specifier allows no final release.
// Per specifier, so an old bound keeps its matches next to a loose one; and per Python, so the
// releases only a newer Python can install do not push out the ones an older Python needs
// (multimethod 1.11+ is for Python >= 3.9; torchpack on 3.8 needs an older one).
std::vector<core::Version> SnapshotClosure::candidates(const std::string& name, const Files& files,
                                                       const Wanted& wanted) const {
  std::set<core::Version> out;
  for (const auto& [text, specifier] : wanted.specifiers) {
    const std::size_t cap = wanted.root_specifiers.count(text) > 0 ? SIZE_MAX : max_versions_;
    for (const auto& python : pythons_) {
      for (const bool prereleases : {false, true}) {
        std::size_t taken = 0;
        for (auto it = files.rbegin(); it != files.rend() && taken < cap; ++it) {
          const std::optional<bool> allow = prereleases ? std::optional<bool>(true) : std::nullopt;
          if (!specifier.contains(it->first, allow)) continue;
          if (!usable_for(it->second, python) || dead_.count({python, name, it->first}) > 0)
            continue;
          out.insert(it->first);
          ++taken;
        }
        if (taken > 0) break;
      }
    }
  }
  return {out.begin(), out.end()};
}

// The file whose metadata stands for the release: the best wheel of the first target that has
// one, else the sdist.
const index::Artifact* SnapshotClosure::to_read(const std::vector<index::Artifact>& files) const {
  for (const auto& target : targets_) {
    const index::Artifact* best = nullptr;
    std::size_t best_rank = 0;
    for (const auto& a : files) {
      if (a.kind != index::ArtifactKind::wheel || !a.requires_python.contains(target.python, true))
        continue;
      const auto rank = target.ranking.rank(*a.wheel);
      if (rank && (best == nullptr || *rank < best_rank)) {
        best = &a;
        best_rank = *rank;
      }
    }
    if (best != nullptr) return best;
  }
  for (const auto& a : files) {
    if (a.kind == index::ArtifactKind::sdist) return &a;
  }
  return nullptr;
}

void SnapshotClosure::expand(const std::string& name, const index::CoreMetadata& metadata) {
  const Wanted& w = wanted_.at(name);
  const std::string by = "`" + name + " " + metadata.version.to_string() + "`";
  for (const auto& requirement : metadata.requires_dist) {
    if (applies(requirement, w.extras)) ask(requirement, by);
  }
}

void SnapshotClosure::list(const std::vector<std::string>& names) {
  if (names.empty()) return;
  auto listings = client_.list(names);
  for (auto& [name, listing] : listings) {
    if (!listing) {
      throw Error(ExitCode::failure, "cannot list `" + name + "`: " + listing.error(), kSourceHint);
    }
    Files& files = files_[name];
    if (!listing->source) {
      // Published metadata does name packages no index has (notifiers 1.3.1 asks for
      // `requestes`): the releases asking for it stay, and the solver finds them unusable.
      problems_.push_back("`" + name + "`: no source lists it (asked by " +
                          wanted_.at(name).asked_by + ")");
      continue;
    }
    for (auto& a : listing->artifacts) {
      if (usable(a)) files[a.version].push_back(std::move(a));
    }
    for (auto& [version, list] : files) {
      std::sort(list.begin(), list.end(),
                [](const auto& a, const auto& b) { return a.filename < b.filename; });
    }
  }
}

void SnapshotClosure::read_round(const std::set<std::string>& round) {
  std::vector<std::string> unlisted;
  for (const auto& name : round) {
    if (files_.count(name) == 0) unlisted.push_back(name);
  }
  list(unlisted);
  std::vector<index::Artifact> batch;
  std::vector<std::pair<std::string, core::Version>> slots;
  std::vector<std::string> reexpand;  // read before, asked for more extras since
  for (const auto& name : round) {
    Wanted& w = wanted_.at(name);
    const Files& files = files_.at(name);
    auto& have = read_[name];
    if (!have.empty() && w.extras.size() != w.extras_expanded) reexpand.push_back(name);
    w.extras_expanded = w.extras.size();
    const auto versions = candidates(name, files, w);
    if (versions.empty() && have.empty() && !files.empty()) {
      problems_.push_back("`" + name +
                          "`: no release has a file for the snapshot's targets (asked by " +
                          w.asked_by + ")");
    }
    for (const auto& version : versions) {
      if (have.count(version) > 0 || unreadable_.count({name, version}) > 0) continue;
      if (const index::Artifact* a = to_read(files.at(version))) {
        batch.push_back(*a);
        slots.emplace_back(name, version);
      }
    }
  }
  auto metadata = client_.metadata(batch);
  for (const auto& name : reexpand) {
    for (const auto& [version, read] : read_.at(name)) expand(name, read.metadata);
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const auto& [name, version] = slots[i];
    if (!metadata[i]) {
      problems_.push_back("`" + batch[i].filename + "`: " + metadata[i].error());
      unreadable_.insert({name, version});
      continue;
    }
    const bool wheel = batch[i].kind == index::ArtifactKind::wheel;
    auto& read =
        read_[name].emplace(version, Read{std::move(metadata[i]).value(), wheel}).first->second;
    if (read.metadata.requires_python.empty()) {
      read.metadata.requires_python = batch[i].requires_python;
    }
    expand(name, read.metadata);
  }
}

void SnapshotClosure::ask_source_sdist(const matrix::PackageVersion& curated) {
  source_builds_.emplace(SourceBuild{curated.name, curated.version},
                         curated.version.without_local());
}

// Listed apart from the walk: the name may be one the snapshot leaves to the curated matrix
// (mmcv-full), whose other PyPI files are not read. A build whose sdist no source serves is
// reported; its record then has no file, and a lock explains that it cannot build it.
void SnapshotClosure::read_source_sdists() {
  std::set<std::string> names;
  for (const auto& [build, version] : source_builds_) names.insert(build.first);
  if (names.empty()) return;
  auto listings = client_.list({names.begin(), names.end()});
  for (const auto& [build, version] : source_builds_) {
    auto& listing = listings.at(build.first);
    if (!listing) {
      throw Error(ExitCode::failure, "cannot list `" + build.first + "`: " + listing.error(),
                  kSourceHint);
    }
    std::vector<index::Artifact> sdists;
    for (const auto& a : listing->artifacts) {
      if (a.kind == index::ArtifactKind::sdist && a.version == version && usable(a))
        sdists.push_back(a);
    }
    std::sort(sdists.begin(), sdists.end(),
              [](const auto& a, const auto& b) { return a.filename < b.filename; });
    const std::string id = "`" + build.first + " " + build.second.to_string() + "`";
    if (sdists.empty()) {
      problems_.push_back(id + ": no source serves an sdist of " + version.to_string() +
                          " (its build compiles it)");
      continue;
    }
    source_sdists_[build] = std::move(sdists);
  }
}

// Hashes and sizes a source left out (HTML pages without `#sha256=`, sizes PEP 503 never gives).
void SnapshotClosure::complete_artifacts() {
  std::vector<index::Artifact> batch;
  std::vector<index::Artifact*> slots;
  for (auto& [name, versions] : files_) {
    const auto read = read_.find(name);
    if (read == read_.end()) continue;
    for (auto& [version, list] : versions) {
      if (read->second.count(version) == 0) continue;
      for (auto& a : list) {
        if (!a.sha256.empty() && a.size) continue;
        batch.push_back(a);
        slots.push_back(&a);
      }
    }
  }
  for (auto& [build, list] : source_sdists_) {
    for (auto& a : list) {
      if (!a.sha256.empty() && a.size) continue;
      batch.push_back(a);
      slots.push_back(&a);
    }
  }
  auto completed = client_.complete(std::move(batch));
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!completed[i]) {
      throw Error(ExitCode::failure,
                  "cannot fetch `" + slots[i]->filename + "`: " + completed[i].error(),
                  "retry; a hash mismatch means the source serves other bytes than it published");
    }
    *slots[i] = std::move(completed[i]).value();
  }
}

SnapshotResult SnapshotClosure::result() const {
  SnapshotResult out;
  for (const auto& [name, versions] : read_) {
    const Wanted& w = wanted_.at(name);
    for (const auto& [version, read] : versions) {
      if (!installable(name, version)) continue;
      SnapshotRecord record;
      record.name = name;
      record.version = version;
      record.python = read.metadata.requires_python;
      for (const auto& requirement : read.metadata.requires_dist) {
        if (applies(requirement, w.extras)) record.requires_.push_back(requirement);
      }
      record.artifacts = files_.at(name).at(version);
      record.from_wheel = read.from_wheel;
      out.records.push_back(std::move(record));
    }
  }
  for (const auto& [build, sdists] : source_sdists_) {
    SnapshotRecord record;
    record.name = build.first;
    record.version = build.second;
    record.python = sdists.front().requires_python;
    record.artifacts = sdists;
    record.source_build = true;
    out.records.push_back(std::move(record));
  }
  // By name, then PEP 440 version (`1.7.2+source` after `1.7.2`); no two records share both.
  std::stable_sort(out.records.begin(), out.records.end(), [](const auto& a, const auto& b) {
    return a.name != b.name ? a.name < b.name : a.version < b.version;
  });
  out.skipped.assign(skipped_.begin(), skipped_.end());
  out.problems = problems_;
  drop_unresolvable(out);
  return out;
}

// A release that requires a name with no record (no source lists it, or every release of it
// was left out) can never be installed: leaving it out keeps the layer loadable, and the lock
// then picks another release or explains. Repeats until no record names a missing package.
void SnapshotClosure::drop_unresolvable(SnapshotResult& out) const {
  for (bool dropped = true; dropped;) {
    dropped = false;
    std::set<std::string> present(skipped_.begin(), skipped_.end());
    for (const auto& record : out.records) present.insert(record.name);
    auto missing = [&](const SnapshotRecord& record) -> const core::Requirement* {
      for (const auto& r : record.requires_) {
        if (present.count(r.normalized_name()) == 0) return &r;
      }
      return nullptr;
    };
    std::vector<SnapshotRecord> kept;
    for (auto& record : out.records) {
      if (const core::Requirement* r = missing(record)) {
        out.problems.push_back("`" + record.name + " " + record.version.to_string() +
                               "`: requires `" + r->normalized_name() + "`, which has no record");
        dropped = true;
        continue;
      }
      kept.push_back(std::move(record));
    }
    out.records = std::move(kept);
  }
}

bool SnapshotClosure::installable_on(const std::string& name, const core::Version& version,
                                     const core::Version& python) const {
  const auto files = files_.find(name);
  if (files == files_.end()) return false;
  const auto listed = files->second.find(version);
  return listed != files->second.end() && usable_for(listed->second, python) &&
         dead_.count({python, name, version}) == 0;
}

bool SnapshotClosure::installable(const std::string& name, const core::Version& version) const {
  return std::any_of(pythons_.begin(), pythons_.end(), [&](const core::Version& python) {
    return installable_on(name, version, python);
  });
}

// A release is dead on a Python when a requirement of it matches no release installable there, or
// only dead ones (jupyter's newest notebook needs a jupyterlab for Python >= 3.9): it gives up its
// place among the newest releases kept for that Python, and the next older one is read. A release
// dead on every Python is left out. Per Python, so a release a newer Python can install does not
// stand, for an older one, in the place of a release that older Python can install.
bool SnapshotClosure::mark_dead() {
  bool marked = false;
  for (const auto& python : pythons_) marked = mark_dead_on(python) || marked;
  return marked;
}

bool SnapshotClosure::mark_dead_on(const core::Version& python) {
  bool marked = false;
  for (const auto& [name, versions] : read_) {
    const Wanted& w = wanted_.at(name);
    for (const auto& [version, read] : versions) {
      if (!installable_on(name, version, python)) continue;
      for (const auto& r : read.metadata.requires_dist) {
        if (!r.url.empty() || !applies_on(r, w.extras, python)) continue;
        const auto listed = files_.find(r.normalized_name());
        if (listed == files_.end() || served_elsewhere(listed->first)) continue;
        const bool any =
            std::any_of(listed->second.begin(), listed->second.end(), [&](const auto& f) {
              return r.specifier.contains(f.first, true) &&
                     installable_on(listed->first, f.first, python);
            });
        if (any) continue;
        dead_.insert({python, name, version});
        dirty_.insert(name);
        marked = true;
        break;
      }
    }
  }
  return marked;
}

SnapshotResult SnapshotClosure::run() {
  read_source_sdists();
  do {
    while (!dirty_.empty()) read_round(std::exchange(dirty_, {}));
  } while (mark_dead());
  complete_artifacts();
  return result();
}

}  // namespace bevenv::app
