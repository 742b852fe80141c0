// Layers: within one layer a record may be defined once; a later layer replaces a record of
// an earlier one with the same identity (package name+version, rule id, toolkit version,
// profile name).
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "bevenv/util/text.hpp"
#include "checks.hpp"

namespace bevenv::matrix::detail {
namespace {

template <class Key, class T>
struct Merger {
  std::string what;
  std::map<Key, Layered<T>> records;

  void add(Key key, Layered<T> entry, const Origin& origin, std::string_view label,
           std::vector<Diagnostic>& diagnostics, const Origin& (*origin_of)(const T&)) {
    auto it = records.find(key);
    if (it == records.end()) {
      records.emplace(std::move(key), std::move(entry));
      return;
    }
    if (it->second.layer_index == entry.layer_index) {
      report(diagnostics, origin,
             "duplicate " + what + " " + std::string(label) + "; first defined at " +
                 origin_of(it->second.record).to_string());
      return;
    }
    if (entry.layer_index > it->second.layer_index) it->second = std::move(entry);
  }
};

const Origin& rule_origin(const Rule& r) { return r.origin; }
const Origin& toolkit_origin(const Toolkit& t) { return t.origin; }
const Origin& profile_origin(const RawProfile& p) { return p.own.origin; }
const Origin& meta_origin(const MetaRecord& m) { return m.origin; }
const Origin& failure_origin(const Failure& f) { return f.origin; }

// Records keyed by their `id` (rules, failures): a later layer replaces, one layer may not say
// it twice. In id order.
template <typename T>
std::vector<T> merged_by_id(const char* what, std::vector<Layered<T>>& entries,
                            std::vector<Diagnostic>& diagnostics,
                            const Origin& (*origin_of)(const T&)) {
  Merger<std::string, T> merger{what, {}};
  for (auto& entry : entries) {
    const Origin origin = entry.record.origin;
    const std::string label = "`" + entry.record.id + "`";
    std::string key = entry.record.id;
    merger.add(std::move(key), std::move(entry), origin, label, diagnostics, origin_of);
  }
  std::vector<T> out;
  for (auto& [id, entry] : merger.records) out.push_back(std::move(entry.record));
  return out;
}

// Whether the records are in strictly ascending version order: then no two share an identity
// and the list is already the Package's.
bool strictly_ascending(const std::vector<PackageVersion>& versions) {
  for (std::size_t i = 1; i < versions.size(); ++i) {
    if (!(versions[i - 1].version < versions[i].version)) return false;
  }
  return true;
}

// Keeps in `winner` the entry of the highest layer; two entries of one layer are a duplicate.
void consider(const NamedRecords& records, std::optional<std::size_t>& winner, std::size_t entry,
              std::vector<Diagnostic>& diagnostics) {
  if (!winner) {
    winner = entry;
    return;
  }
  const auto& versions = records.versions;
  if (records.layers[entry] == records.layers[*winner]) {
    report(diagnostics, versions[entry].origin,
           "duplicate package `" + versions[entry].name + "` `" +
               versions[entry].version.to_string() + "`; first defined at " +
               versions[*winner].origin.to_string());
  } else if (records.layers[entry] > records.layers[*winner]) {
    winner = entry;
  }
}

std::string_view file_name(std::string_view url) { return url.substr(url.rfind('/') + 1); }

// The generated files a curated record takes: all of them when it names none; else the one its
// `sha256` (or the file name of its `url`) names. False when it names a file the generated
// record does not list: the two layers disagree about the release.
bool take_artifacts(PackageVersion& curated, const PackageVersion& generated) {
  if (!curated.artifacts.empty()) return true;
  if (curated.artifact_url.empty() && curated.sha256.empty()) {
    curated.artifacts = generated.artifacts;
    return true;
  }
  const std::string sha = util::ascii_lower(curated.sha256);
  for (const Artifact& a : generated.artifacts) {
    const bool same_sha = sha.empty() || util::ascii_lower(a.sha256) == sha;
    const bool same_file =
        curated.artifact_url.empty() || file_name(curated.artifact_url) == a.filename;
    if (same_sha && same_file) curated.artifacts.push_back(a);
  }
  return !curated.artifacts.empty() || generated.artifacts.empty();
}

// False when the curated record names a file the generated one does not list.
bool fill_from_generated(PackageVersion& curated, const PackageVersion& generated) {
  // A record served from another index or page speaks of other files than the snapshot read.
  if (!curated.index_url.empty() || !curated.find_links.empty()) return true;
  const bool agree = take_artifacts(curated, generated);
  if (curated.python.empty()) curated.python = generated.python;
  if (!curated.deps_complete) {
    // The curated list wins where it speaks; the metadata adds the names it leaves out.
    std::vector<std::string> spoken;
    for (const auto& r : curated.requirements) spoken.push_back(r.normalized_name());
    for (const auto& r : generated.requirements) {
      if (std::find(spoken.begin(), spoken.end(), r.normalized_name()) == spoken.end())
        curated.requirements.push_back(r);
    }
    curated.deps_complete = generated.deps_complete;
  }
  const Provenance& from = *generated.generated;
  curated.sources.push_back(generated.origin.file + " (" + from.index + ", read " + from.read +
                            ")");
  return agree;
}

// A generated `build = "source"` record holds the sdist of the curated source build of its
// version: never a candidate by itself (built without that record's `env`, mmcv-full would lose
// its ops), and only for a step that builds its sdist. Empty when it fits.
std::string sdist_misfit(const PackageVersion* curated, const PackageVersion& generated) {
  if (generated.build != BuildKind::source) return {};
  const std::string what = "`" + generated.id() + "` (generated) holds the sdist of a source build";
  if (curated == nullptr) return what + ", and no curated record has that version";
  if (!curated->build_step || !curated->build_step->sdist)
    return what + ", but the build_step of " + curated->origin.to_string() +
           " does not build its sdist (`sdist = true`)";
  return {};
}

void check_sdist_fit(const PackageVersion* curated, const PackageVersion& generated,
                     std::vector<Diagnostic>& diagnostics) {
  const std::string misfit = sdist_misfit(curated, generated);
  if (misfit.empty()) return;
  report(diagnostics, generated.origin,
         misfit + "; refresh the snapshot (docs/matrix-snapshot.md)");
}

// The Merger rules for one name's versions: ordered by (version, reading order), each identity is a
// run of neighbours decided in reading order. A curated record beats a generated one whatever their
// layers, and takes what it lacks from it.
// `check_sdists` false (`bevenv matrix snapshot`): a generated sdist that fits no curated build
// is let be, since the snapshot is what rewrites it.
std::vector<PackageVersion> merge_versions(NamedRecords& records, bool check_sdists,
                                           std::vector<Diagnostic>& diagnostics) {
  if (strictly_ascending(records.versions)) {
    // No two records share a version: a generated one has no curated record beside it.
    for (const auto& v : records.versions)
      if (v.generated && check_sdists) check_sdist_fit(nullptr, v, diagnostics);
    return std::move(records.versions);
  }
  auto& versions = records.versions;
  std::vector<std::size_t> order(versions.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return versions[a].version < versions[b].version;
  });
  std::vector<PackageVersion> out;
  for (std::size_t run = 0; run < order.size();) {
    std::optional<std::size_t> curated;
    std::optional<std::size_t> generated;
    std::size_t next = run;
    for (; next < order.size() && versions[order[next]].version == versions[order[run]].version;
         ++next) {
      const std::size_t entry = order[next];
      consider(records, versions[entry].generated ? generated : curated, entry, diagnostics);
    }
    if (generated && check_sdists)
      check_sdist_fit(curated ? &versions[*curated] : nullptr, versions[*generated], diagnostics);
    if (curated) {
      out.push_back(std::move(versions[*curated]));
      if (generated && !fill_from_generated(out.back(), versions[*generated])) {
        report(diagnostics, out.back().origin,
               "`" + out.back().id() + "`: the file its `url` or `sha256` names is not among the " +
                   "artifacts of " + versions[*generated].origin.to_string() +
                   "; check the hash, or refresh the snapshot");
      }
    } else {
      out.push_back(std::move(versions[*generated]));
    }
    run = next;
  }
  return out;
}

}  // namespace

PackageVersion& PackageRecords::add(std::size_t layer, const std::string& name,
                                    std::size_t expected) {
  if (last_ == nullptr || last_name_ != name) {
    last_ = &by_name_[name];
    last_name_ = name;
    if (last_->versions.empty()) {
      last_->versions.reserve(expected);
      last_->layers.reserve(expected);
    }
  }
  last_->layers.push_back(layer);
  return last_->versions.emplace_back();
}

void PackageRecords::absorb(PackageRecords&& other) {
  for (auto& [name, records] : other.by_name_) {
    auto [it, inserted] = by_name_.try_emplace(name, std::move(records));
    if (inserted) continue;
    NamedRecords& into = it->second;
    into.layers.insert(into.layers.end(), records.layers.begin(), records.layers.end());
    for (auto& record : records.versions) into.versions.push_back(std::move(record));
  }
  last_ = nullptr;
  other.by_name_.clear();
  other.last_ = nullptr;
}

std::vector<Diagnostic> build_matrix(Collected&& collected, Matrix& out, bool known_only) {
  std::vector<Diagnostic> diagnostics;

  Merger<int, MetaRecord> meta{"`[matrix]` table", {}};
  for (auto& entry : collected.meta) {
    const Origin origin = entry.record.origin;
    meta.add(0, std::move(entry), origin, "", diagnostics, meta_origin);
  }
  if (!meta.records.empty()) {
    const MetaRecord& record = meta.records.begin()->second.record;
    out.version = record.version.value_or("");
    out.schema = record.schema;
  }

  for (auto& [name, records] : collected.packages.by_name()) {
    Package& package = out.packages[name];
    package.name = name;
    package.versions = merge_versions(records, known_only, diagnostics);  // ascending versions
  }

  out.rules = merged_by_id<Rule>("rule", collected.rules, diagnostics, rule_origin);

  Merger<core::Version, Toolkit> toolkits{"toolkit", {}};
  for (auto& entry : collected.toolkits) {
    const Origin origin = entry.record.origin;
    const std::string label = "`" + entry.record.version.to_string() + "`";
    core::Version key = entry.record.version;
    toolkits.add(std::move(key), std::move(entry), origin, label, diagnostics, toolkit_origin);
  }
  for (auto& [version, entry] : toolkits.records) out.toolkits.push_back(std::move(entry.record));

  Merger<std::string, RawProfile> profiles{"profile", {}};
  for (auto& entry : collected.profiles) {
    const Origin origin = entry.record.own.origin;
    const std::string label = "`" + entry.record.own.name + "`";
    std::string key = entry.record.own.name;
    profiles.add(std::move(key), std::move(entry), origin, label, diagnostics, profile_origin);
  }
  std::map<std::string, RawProfile, std::less<>> raw_profiles;
  for (auto& [name, entry] : profiles.records) raw_profiles.emplace(name, std::move(entry.record));

  for (auto& entry : collected.observed) out.observed.push_back(std::move(entry.record));
  for (auto& entry : collected.observed_hosts) {
    out.observed_hosts.push_back(std::move(entry.record));
  }

  out.failures = merged_by_id<Failure>("failure", collected.failures, diagnostics, failure_origin);

  resolve_profiles(raw_profiles, out, diagnostics);
  check_packages(out, diagnostics, known_only);
  check_rules(out, diagnostics, known_only);
  check_profiles(out, diagnostics);
  check_observed(out, diagnostics);
  check_failures(out, diagnostics);
  return diagnostics;
}

}  // namespace bevenv::matrix::detail
