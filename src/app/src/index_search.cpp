// The lock's index search (index_search.hpp): breadth first over the packages the request and
// its records need, reading listings and metadata through index::PackageSource.
#include "index_search.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "bevenv/core/error.hpp"

namespace bevenv::app {
namespace {

using Release = std::pair<core::Version, const index::Artifact*>;

bool is_curated(const LockInputs& inputs, const std::string& name) {
  return inputs.matrix.find_package(name) != nullptr;
}

// Releases of a listing, newest first, each with the artifact that fits the target.
std::vector<Release> releases_of(const index::Listing& listing, const index::TagRanking& ranking,
                                 const core::Version& python) {
  std::map<core::Version, std::vector<const index::Artifact*>> by_version;
  for (const auto& a : listing.artifacts) by_version[a.version].push_back(&a);
  std::vector<Release> out;
  for (auto it = by_version.rbegin(); it != by_version.rend(); ++it) {
    if (const auto* best = best_artifact(it->second, ranking, python))
      out.emplace_back(it->first, best);
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

// The releases one specifier allows: pre-releases where the request allows them, or where the
// specifier allows no final release.
std::set<std::size_t> matching(const std::vector<Release>& releases,
                               const core::SpecifierSet& specifier, bool prereleases) {
  std::set<std::size_t> out;
  const std::optional<bool> pre = prereleases ? std::optional<bool>(true) : std::nullopt;
  for (std::size_t i = 0; i < releases.size(); ++i) {
    if (specifier.contains(releases[i].first, pre)) out.insert(i);
  }
  if (out.empty() && !prereleases) {
    for (std::size_t i = 0; i < releases.size(); ++i) {
      if (specifier.contains(releases[i].first, true)) out.insert(i);
    }
  }
  return out;
}

// The releases the solver may need to see: every one the specifiers allow, so the lock never
// depends on how many versions were read. A root requirement holds whichever dependents are
// chosen, so for a root package every release all its root specifiers allow is a candidate;
// another package's candidates are what any dependent allows.
std::set<std::size_t> candidates(const std::vector<Release>& releases,
                                 const std::vector<core::SpecifierSet>& roots,
                                 const std::vector<core::SpecifierSet>& from_dependents,
                                 bool prereleases) {
  std::set<std::size_t> out;
  if (!roots.empty()) {
    for (std::size_t i = 0; i < releases.size(); ++i) out.insert(i);
    for (const auto& root : roots) {
      const auto keep = matching(releases, root, prereleases);
      std::erase_if(out, [&](std::size_t i) { return keep.count(i) == 0; });
    }
  } else if (from_dependents.empty()) {
    for (std::size_t i = 0; i < releases.size(); ++i) out.insert(i);
  } else {
    for (const auto& specifier : from_dependents)
      out.merge(matching(releases, specifier, prereleases));
  }
  return out;
}

// Requires-Dist entries that apply on the target, with the extras asked of the package.
std::vector<core::Requirement> applicable_requirements(const index::CoreMetadata& metadata,
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

// A read with MetadataCost::any, which the PackageSource contract says always has a value.
core::Expected<index::CoreMetadata, std::string> taken(
    std::optional<core::Expected<index::CoreMetadata, std::string>>& slot) {
  if (slot) return std::move(*slot);
  return core::unexpected(std::string("the source read no metadata"));
}

// The record of an uncurated release before its metadata is read: where it comes from and its
// file; what it needs is filled in by fill_from_metadata().
matrix::PackageVersion release_record(const std::string& name, const core::Version& version,
                                      const index::Artifact& artifact,
                                      const index::Source& source) {
  matrix::PackageVersion build;
  build.name = name;
  build.version = version;
  if (source.kind == index::SourceKind::index)
    build.index_url = source.location;
  else
    build.find_links = source.location;
  build.artifact_url = artifact.url;
  build.sha256 = artifact.sha256;
  build.build = artifact.kind == index::ArtifactKind::wheel ? matrix::BuildKind::wheel
                                                            : matrix::BuildKind::sdist;
  build.deps_complete = false;
  return build;
}

void fill_from_metadata(matrix::PackageVersion& build, const index::Artifact& artifact,
                        const index::CoreMetadata& metadata,
                        std::vector<core::Requirement> requirements) {
  build.requirements = std::move(requirements);
  build.python = metadata.requires_python;
  build.deps_complete = true;
  build.sources = {"metadata of `" + artifact.filename + "`"};
}

std::string self_of(const std::string& name, const core::Version& version) {
  return name + " " + version.to_string();
}

}  // namespace

IndexSearch::IndexSearch(IndexSession& session, const LockInputs& inputs, Translation& translation)
    : session_(session),
      source_(*session.source),
      inputs_(inputs),
      translation_(translation),
      env_(inputs.target.marker_environment()),
      ranking_(ranking_for(inputs)) {}

void IndexSearch::ask(const std::string& name, const core::SpecifierSet& specifier,
                      const std::vector<std::string>& extras, bool root) {
  if (is_virtual(name)) return;
  const bool fresh = wanted_.count(name) == 0;
  Wanted& w = wanted_[name];
  bool changed = root ? add_unique(w.root_specifiers, w.root_texts, specifier)
                      : add_unique(w.specifiers, w.texts, specifier);
  for (const auto& extra : extras) changed = w.extras.insert(extra).second || changed;
  if (changed || fresh) frontier_.insert(name);
}

void IndexSearch::ask_for_roots() {
  for (const auto& d : translation_.request.requirements) ask(d.name, d.specifier, {}, true);
  if (inputs_.profile != nullptr) {
    for (const auto& r : inputs_.profile->requirements)
      ask(r.normalized_name(), r.specifier, r.extras, true);
  }
  for (const auto& u : inputs_.requirements) {
    ask(u.requirement.normalized_name(), u.requirement.specifier, u.requirement.extras, true);
  }
}

void IndexSearch::run() {
  if (!std::exchange(started_, true)) ask_for_roots();
  while (!frontier_.empty()) run_round(true);
}

void IndexSearch::discover() {
  if (!std::exchange(started_, true)) ask_for_roots();
  while (!frontier_.empty()) run_round(false);
}

void IndexSearch::read_newest() {
  for (;;) {
    std::vector<CandidateKey> keys;
    for (const auto& [name, versions] : candidates_) {
      const bool any_read = std::any_of(versions.begin(), versions.end(),
                                        [](const auto& entry) { return !entry.second.unread(); });
      if (!versions.empty() && !any_read) keys.emplace_back(name, versions.rbegin()->first);
    }
    if (keys.empty()) return;
    read(keys, {});
    discover();
  }
}

bool IndexSearch::read_chosen(const solver::Solution& solution) {
  std::vector<CandidateKey> keys = contested(solution);
  // Choices that keep moving mean a conflict deep in the graph, which lazy rounds walk one
  // level per solve: past a few such rounds, what remains is read at once.
  if (!keys.empty() && ++contested_rounds_ > kContestedRounds) return read_all();
  std::vector<CompletionTarget> targets;
  for (const auto& chosen : solution.packages) {
    if (const auto it = candidate_of_.find(chosen.record); it != candidate_of_.end()) {
      const Candidate& c = candidates_.at(it->second.first).at(it->second.second);
      if (c.unread()) keys.push_back(it->second);
    } else if (const auto open = incomplete_.find(chosen.record); open != incomplete_.end()) {
      targets.push_back(open->second);
      incomplete_.erase(open);
    }
  }
  if (keys.empty() && targets.empty()) return false;
  read(keys, std::move(targets));
  discover();
  read_newest();  // the packages those releases brought in
  return true;
}

// The unread candidates of each package whose choice moved since the last solve: what a
// release needs made the solver back off it, and it may back off further, one solve per
// release, unless the rest of that package is read at once (a deep conflict otherwise costs a
// solve per release and level).
std::vector<IndexSearch::CandidateKey> IndexSearch::contested(const solver::Solution& solution) {
  std::vector<CandidateKey> out;
  for (const auto& chosen : solution.packages) {
    const auto it = candidates_.find(chosen.name);
    if (it == candidates_.end()) continue;
    const auto [last, inserted] = last_chosen_.try_emplace(chosen.name, chosen.version);
    const bool moved = !inserted && last->second != chosen.version;
    last->second = chosen.version;
    if (!moved) continue;
    for (const auto& [version, c] : it->second) {
      if (c.unread() && version != chosen.version) out.emplace_back(chosen.name, version);
    }
  }
  return out;
}

bool IndexSearch::read_all() {
  std::vector<CandidateKey> keys = unread();
  std::vector<CompletionTarget> targets = take_incomplete();
  if (keys.empty() && targets.empty()) return false;
  read(keys, std::move(targets));
  run();
  return true;
}

// Every curated record still to complete, handed to a read.
std::vector<IndexSearch::CompletionTarget> IndexSearch::take_incomplete() {
  std::vector<CompletionTarget> out;
  for (auto& [record, target] : std::exchange(incomplete_, {})) out.push_back(target);
  return out;
}

void IndexSearch::finish() {
  session_.skipped.insert(session_.skipped.end(), skipped_.begin(), skipped_.end());
}

std::vector<IndexSearch::CandidateKey> IndexSearch::unread() const {
  std::vector<CandidateKey> out;
  for (const auto& [name, versions] : candidates_) {
    for (const auto& [version, c] : versions) {
      if (c.unread()) out.emplace_back(name, version);
    }
  }
  return out;
}

// One breadth-first step: curated packages ask for what their records need, the packages whose
// releases the sources decide are listed and their new candidates become records; the eager
// search reads those at once.
void IndexSearch::run_round(bool read_candidates) {
  const std::vector<std::string> listed = visit(std::exchange(frontier_, {}));
  list_missing(session_, listed);
  std::vector<CandidateKey> admitted;
  admit(listed, admitted);
  if (!read_candidates) return;
  read(admitted, take_incomplete());
}

// Curated packages: their matrix records say what they need; records whose list is not complete
// wait to be completed from their metadata. Returns the packages of the round whose releases the
// sources decide: every one but those the matrix takes from a page of its own (torch's,
// mmcv-full's), whose records carry the CUDA and kernel facts a release read from a page lacks.
std::vector<std::string> IndexSearch::visit(const std::set<std::string>& round) {
  std::vector<std::string> listed;
  for (const auto& name : round) {
    const bool curated = is_curated(inputs_, name);
    if (!curated || !session_.pinned.contains(name)) listed.push_back(name);
    if (!curated) continue;
    if (!visited_curated_.insert(name).second) continue;
    add_curated_records(translation_, name);
    for (const auto id : translation_.database.find(name)) {
      if (!admitted_by_request(translation_.database.record(id))) continue;
      for (const auto& d : translation_.database.record(id).requirements)
        ask(d.name, d.specifier, {}, false);
      const matrix::PackageVersion* build = translation_.records.find(id);
      if (build != nullptr && !build->deps_complete && build->build != matrix::BuildKind::source)
        incomplete_[id] = {name, id, build};
    }
  }
  return listed;
}

// A record the request's own requirements on its name rule out is never chosen, so what it
// needs is never asked for (a curated matplotlib 3.7's contourpy when the request pins 3.5.2).
bool IndexSearch::admitted_by_request(const solver::PackageRecord& record) const {
  return std::none_of(translation_.request.requirements.begin(),
                      translation_.request.requirements.end(), [&](const solver::Dependency& d) {
                        return d.name == record.name && !d.specifier.contains(record.version, true);
                      });
}

bool IndexSearch::asked_by_request(const std::string& name) const {
  return std::any_of(translation_.request.requirements.begin(),
                     translation_.request.requirements.end(),
                     [&](const solver::Dependency& d) { return d.name == name; });
}

// New candidates of each listed package become records; releases read before are expanded
// again when more extras were asked of their package since.
void IndexSearch::admit(const std::vector<std::string>& listed,
                        std::vector<CandidateKey>& admitted) {
  for (const auto& name : listed) {
    // A package no source lists has no candidates, so a release that needs it is never chosen
    // (pip and uv read a missing page so too); asked for by the request itself, it is an error.
    if (!session_.listings.at(name).source && !asked_by_request(name)) {
      if (unlisted_.insert(name).second) {
        session_.unlisted.push_back(name);
        std::vector<Release> none;
        if (is_curated(inputs_, name)) leave_to_curated(name, none);
      }
      continue;
    }
    const index::Listing& listing = listing_with_source(session_, name);
    auto [it, inserted] = releases_.try_emplace(name);
    if (inserted) {
      it->second = releases_of(listing, ranking_, inputs_.target.python);
      if (is_curated(inputs_, name)) leave_to_curated(name, it->second);
    }
    Wanted& w = wanted_.at(name);
    w.prereleases = w.prereleases || translation_.request.allow_prereleases ||
                    translation_.request.allow_prereleases_for.count(name) > 0;
    auto& have = candidates_[name];
    if (w.extras.size() != std::exchange(w.extras_expanded, w.extras.size())) {
      for (auto& [version, candidate] : have) {
        if (candidate.metadata) expand(name, candidate);
      }
    }
    for (const std::size_t i : newly_allowed(it->second, w)) {
      if (have.count(it->second[i].first) > 0) continue;
      admit_release(name, it->second[i]);
      admitted.emplace_back(name, it->second[i].first);
    }
  }
}

// The releases `w` allows that it did not when candidates were last admitted. Candidates only
// grow, so with the same root specifiers and pre-release rule, the union over the dependents'
// specifiers added since is what is new; a name asked of by hundreds of dependents is then not
// matched against all of them again each round.
std::set<std::size_t> IndexSearch::newly_allowed(const std::vector<Release>& releases, Wanted& w) {
  const bool same_basis = w.admitted && w.admitted_roots == w.root_specifiers.size() &&
                          w.admitted_prereleases == w.prereleases;
  const std::size_t from = w.admitted_specifiers;
  w.admitted = true;
  w.admitted_roots = w.root_specifiers.size();
  w.admitted_specifiers = w.specifiers.size();
  w.admitted_prereleases = w.prereleases;
  if (!same_basis) return candidates(releases, w.root_specifiers, w.specifiers, w.prereleases);
  if (!w.root_specifiers.empty() || from == w.specifiers.size()) return {};
  const std::vector<core::SpecifierSet> added(w.specifiers.begin() + static_cast<long>(from),
                                              w.specifiers.end());
  return candidates(releases, {}, added, w.prereleases);
}

// A curated package's releases: where the matrix has a record of the version, the record stands
// for it (its facts win); a record of a version no source serves is no candidate, since with
// sources given they decide what exists. `releases` keeps the versions the matrix lacks.
void IndexSearch::leave_to_curated(const std::string& name, std::vector<Release>& releases) {
  std::set<core::Version> served;
  for (const auto& release : releases) served.insert(release.first);
  std::set<core::Version> curated;
  for (const auto id : translation_.database.find(name)) {
    const matrix::PackageVersion* found = translation_.records.find(id);
    if (found == nullptr) continue;
    const matrix::PackageVersion& build = *found;
    const auto published = core::Version::parse(build.install_version());
    curated.insert(build.version);
    if (published) curated.insert(*published);
    if (build.build == matrix::BuildKind::source || served.contains(build.version) ||
        (published && served.contains(*published)))
      continue;
    translation_.database.add_requirements(
        id, {{kNoFileVirtual, {}, self_of(name, build.version) + " (" + kNotServedReason + ")"}});
  }
  std::erase_if(releases, [&](const Release& r) { return curated.contains(r.first); });
}

void IndexSearch::admit_release(const std::string& name, const Release& release) {
  const auto& [version, artifact] = release;
  const index::Source& source = *session_.listings.at(name).source;
  session_.fetched.push_back(release_record(name, version, *artifact, source));
  matrix::PackageVersion& build = session_.fetched.back();
  solver::PackageRecord record;
  record.name = name;
  record.version = version;
  record.source = source.location;
  // The matrix's `requires` rules hold for an index's releases as for its own records.
  record.requirements = rule_requirements(translation_, name, version);
  const solver::RecordId id = translation_.database.add(std::move(record));
  translation_.records.add(id, &build);
  candidate_of_[id] = {name, version};
  Candidate& c = candidates_[name][version];
  c.record = id;
  c.build = &build;
  c.artifact = *artifact;
}

// One batch: curated records' completions (cheap reads only) and candidates' metadata.
void IndexSearch::read(const std::vector<CandidateKey>& keys,
                       std::vector<CompletionTarget> targets) {
  const std::vector<Completion> completions = plan_completions(std::move(targets));
  std::vector<index::Artifact> completing, reading;
  for (const auto& c : completions) completing.push_back(c.artifact);
  for (const auto& [name, version] : keys)
    reading.push_back(candidates_.at(name).at(version).artifact);
  auto completed = source_.metadata(completing, index::MetadataCost::cheap_only);
  auto reads = source_.metadata(reading, index::MetadataCost::any);
  session_.metadata_reads += reading.size() + completing.size();
  complete_curated(completions, completed);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& [name, version] = keys[i];
    keep_read(candidates_.at(name).at(version), keys[i], taken(reads[i]));
  }
}

// The wheel of each record's version that fits the target. A source that cannot be read leaves
// the record as the matrix has it; attach_artifacts() reports the source if the package is
// chosen. Where the wheel's metadata would cost a whole download (a server that ignores ranges,
// in front of multi-gigabyte torch wheels), the read is `cheap_only` and the list stands.
std::vector<IndexSearch::Completion> IndexSearch::plan_completions(
    std::vector<CompletionTarget> targets) {
  std::vector<std::string> names;
  for (const auto& t : targets) names.push_back(t.name);
  list_readable(session_, names);
  std::vector<Completion> out;
  for (const auto& t : targets) {
    const auto listed = session_.listings.find(t.name);
    if (listed == session_.listings.end() || !listed->second.source) continue;
    const auto version = core::Version::parse(t.build->install_version());
    if (!version) continue;
    std::vector<const index::Artifact*> files;
    for (const auto& a : listed->second.artifacts) {
      if (a.version == *version) files.push_back(&a);
    }
    const index::Artifact* best = best_artifact(files, ranking_, inputs_.target.python);
    if (best == nullptr || best->kind != index::ArtifactKind::wheel) continue;
    out.push_back({t.name, t.record, *best});
  }
  return out;
}

// The matrix wins where it speaks: a record gains only requirements on names it does not
// mention.
void IndexSearch::complete_curated(const std::vector<Completion>& completions,
                                   MetadataReads& reads) {
  for (std::size_t i = 0; i < completions.size(); ++i) {
    const Completion& c = completions[i];
    if (!reads[i]) continue;  // not cheap: the matrix's list stands
    const auto& read = *reads[i];
    if (!read) {
      fail_reading("cannot read the metadata of `" + c.artifact.filename + "`: ", read.error(),
                   kSourcesHint);
    }
    std::set<std::string> spoken;
    for (const auto& d : translation_.database.record(c.record).requirements) spoken.insert(d.name);
    std::vector<solver::Dependency> gained;
    for (const auto& r : applicable(*read, c.name)) {
      const std::string dep = r.normalized_name();
      if (spoken.count(dep) > 0 || is_virtual(dep)) continue;
      gained.push_back({dep, r.specifier, "metadata of `" + c.artifact.filename + "`"});
      ask(dep, r.specifier, r.extras, false);
    }
    translation_.database.add_requirements(c.record, std::move(gained));
  }
}

void IndexSearch::keep_read(Candidate& candidate, const CandidateKey& key,
                            core::Expected<index::CoreMetadata, std::string> read) {
  const std::string release = self_of(key.first, key.second);
  // An archive that cannot say what it needs, or metadata of another release: that one release
  // is no candidate, and the lock says so.
  if (!read && index::unusable_release(read.error())) {
    const std::string why = read.error().substr(0, read.error().find('\n'));
    skipped_.push_back("`" + release + "`: " + why);
    candidate.skipped = true;
    translation_.database.add_requirements(candidate.record,
                                           {{kNoFileVirtual, {}, release + " (" + why + ")"}});
    return;
  }
  if (!read) {
    fail_reading("cannot read the metadata of `" + release + "`: ", read.error(), kSourcesHint);
  }
  candidate.metadata = std::move(read).value();
  expand(key.first, candidate);
}

// Gives the record what its metadata requires with the extras asked so far, and asks for it.
void IndexSearch::expand(const std::string& name, Candidate& candidate) {
  std::vector<core::Requirement> requirements = applicable(*candidate.metadata, name);
  const std::string self = self_of(name, candidate.build->version);
  std::vector<solver::Dependency> added;
  for (const auto& r : requirements) {
    ask(r.normalized_name(), r.specifier, r.extras, false);
    if (candidate.required.insert(r.to_string()).second)
      added.push_back({r.normalized_name(), r.specifier, self});
  }
  translation_.database.add_requirements(candidate.record, std::move(added));
  fill_from_metadata(*candidate.build, candidate.artifact, *candidate.metadata,
                     std::move(requirements));
}

std::vector<core::Requirement> IndexSearch::applicable(const index::CoreMetadata& metadata,
                                                       const std::string& name) {
  return applicable_requirements(metadata, wanted_.at(name).extras, env_);
}

}  // namespace bevenv::app
