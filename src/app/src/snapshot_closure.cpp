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
    : client_(client), matrix_(matrix), targets_(std::move(targets)), max_versions_(max_versions) {}

void SnapshotClosure::ask(const core::Requirement& requirement, const std::string& asked_by) {
  if (!requirement.url.empty()) return;  // a direct URL is no index's business
  ask(requirement.normalized_name(), requirement.specifier, requirement.extras, asked_by);
}

void SnapshotClosure::ask(const std::string& name, const core::SpecifierSet& specifier,
                          const std::vector<std::string>& extras, const std::string& asked_by) {
  if (served_elsewhere(name)) {
    skipped_.insert(name);
    follow_curated(name);
    return;
  }
  auto [it, inserted] = wanted_.try_emplace(name);
  Wanted& w = it->second;
  if (inserted) w.asked_by = asked_by;
  bool changed = w.specifiers.emplace(specifier.to_string(), specifier).second;
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
  for (const auto& target : targets_) {
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

// The newest `max_versions_` releases each specifier allows (pre-releases only where a
// specifier allows no final release), so an old bound keeps its matches next to a loose one.
std::vector<core::Version> SnapshotClosure::candidates(const Files& files,
                                                       const Wanted& wanted) const {
  std::set<core::Version> out;
  for (const auto& [text, specifier] : wanted.specifiers) {
    for (const bool prereleases : {false, true}) {
      std::size_t taken = 0;
      for (auto it = files.rbegin(); it != files.rend() && taken < max_versions_; ++it) {
        const std::optional<bool> allow = prereleases ? std::optional<bool>(true) : std::nullopt;
        if (!specifier.contains(it->first, allow)) continue;
        out.insert(it->first);
        ++taken;
      }
      if (taken > 0) break;
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
    if (!listing->source) {
      throw Error(ExitCode::failure,
                  "no source lists `" + name + "` (asked by " + wanted_.at(name).asked_by + ")",
                  kSourceHint);
    }
    Files& files = files_[name];
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
    const auto versions = candidates(files, w);
    if (versions.empty() && have.empty()) {
      throw Error(ExitCode::failure,
                  "no release of `" + name + "` has a file for the snapshot's targets (asked by " +
                      w.asked_by + ")",
                  "add its Python or platform to `matrix/snapshot.toml`, or relax the root that "
                  "asks for it");
    }
    for (const auto& version : versions) {
      if (have.count(version) > 0) continue;
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
  out.skipped.assign(skipped_.begin(), skipped_.end());
  out.problems = problems_;
  return out;
}

SnapshotResult SnapshotClosure::run() {
  while (!dirty_.empty()) read_round(std::exchange(dirty_, {}));
  complete_artifacts();
  return result();
}

}  // namespace bevenv::app
