// Layers: within one layer a record may be defined once; a later layer replaces a record of
// an earlier one with the same identity (package name+version, rule id, toolkit version,
// profile name).
#include <algorithm>
#include <map>

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
      diagnostics.push_back(Diagnostic{origin.file, origin.line, origin.column,
                                       "duplicate " + what + " " + std::string(label) +
                                           "; first defined at " +
                                           origin_of(it->second.record).to_string()});
      return;
    }
    if (entry.layer_index > it->second.layer_index) it->second = std::move(entry);
  }
};

const Origin& package_origin(const PackageVersion& p) { return p.origin; }
const Origin& rule_origin(const Rule& r) { return r.origin; }
const Origin& toolkit_origin(const Toolkit& t) { return t.origin; }
const Origin& profile_origin(const RawProfile& p) { return p.own.origin; }
const Origin& meta_origin(const MetaRecord& m) { return m.origin; }

}  // namespace

std::vector<Diagnostic> build_matrix(Collected&& collected, Matrix& out) {
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

  Merger<std::pair<std::string, core::Version>, PackageVersion> packages{"package", {}};
  for (auto& entry : collected.packages) {
    const Origin origin = entry.record.origin;
    const std::string label =
        "`" + entry.record.name + "` `" + entry.record.version.to_string() + "`";
    auto key = std::make_pair(entry.record.name, entry.record.version);
    packages.add(std::move(key), std::move(entry), origin, label, diagnostics, package_origin);
  }
  for (auto& [key, entry] : packages.records) {
    Package& package = out.packages[key.first];
    package.name = key.first;
    package.versions.push_back(std::move(entry.record));  // map order: ascending versions
  }

  Merger<std::string, Rule> rules{"rule", {}};
  for (auto& entry : collected.rules) {
    const Origin origin = entry.record.origin;
    const std::string label = "`" + entry.record.id + "`";
    std::string key = entry.record.id;
    rules.add(std::move(key), std::move(entry), origin, label, diagnostics, rule_origin);
  }
  for (auto& [id, entry] : rules.records) out.rules.push_back(std::move(entry.record));

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

  resolve_profiles(raw_profiles, out, diagnostics);
  check_packages(out, diagnostics);
  check_rules(out, diagnostics);
  check_profiles(out, diagnostics);
  check_observed(out, diagnostics);
  return diagnostics;
}

}  // namespace bevenv::matrix::detail
