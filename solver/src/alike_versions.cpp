#include "alike_versions.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace bevenv::solver::detail {
namespace {

std::size_t mix(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

std::size_t hash_of(const core::SpecifierSet& set) {
  std::size_t seed = set.specifiers().size();
  for (const core::Specifier& s : set.specifiers()) {
    seed = mix(seed, static_cast<std::size_t>(s.op()) * 2 + (s.is_wildcard() ? 1 : 0));
    seed = mix(seed, std::hash<std::string>{}(s.version_text()));
  }
  return seed;
}

bool same(const std::vector<Dependency>& a, const std::vector<Dependency>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Dependency& x, const Dependency& y) {
                      return x.name == y.name && x.specifier.same_as_written(y.specifier);
                    });
}

std::size_t hash_of(const std::vector<Dependency>& dependencies) {
  std::size_t seed = dependencies.size();
  for (const Dependency& d : dependencies)
    seed = mix(mix(seed, std::hash<std::string>{}(d.name)), hash_of(d.specifier));
  return seed;
}

// What a record is apart from its version; origins (which name the version) do not count.
bool alike(const PackageRecord& a, const PackageRecord& b) {
  return a.preferred == b.preferred && a.disfavored == b.disfavored && a.source == b.source &&
         a.is_prerelease() == b.is_prerelease() && same(a.requirements, b.requirements) &&
         same(a.conflicts, b.conflicts);
}

// The distinct specifiers on each name that has more than one candidate record.
class SpecifiersByName {
 public:
  explicit SpecifiersByName(const std::unordered_map<std::string, std::vector<RecordId>>& names) {
    for (const auto& [name, ids] : names) lists_[name];
  }
  void add(const std::string& name, const core::SpecifierSet& specifier) {
    auto it = lists_.find(name);
    if (it == lists_.end() || specifier.empty()) return;
    auto& [shared, seen, list] = it->second;
    // Most sets are copies of a few: one seen already is known by its identity, unhashed.
    if (!shared.insert(specifier.identity()).second) return;
    const std::size_t key = hash_of(specifier);
    auto [first, last] = seen.equal_range(key);
    for (auto at = first; at != last; ++at) {
      if (at->second->same_as_written(specifier)) return;
    }
    seen.emplace(key, &specifier);
    list.push_back(&specifier);
  }
  void add(const std::vector<Dependency>& dependencies) {
    for (const Dependency& d : dependencies) add(d.name, d.specifier);
  }
  const std::vector<const core::SpecifierSet*>& of(const std::string& name) const {
    return lists_.at(name).list;
  }

 private:
  struct Lists {
    std::unordered_set<const void*> shared;  // identities of the sets added
    std::unordered_multimap<std::size_t, const core::SpecifierSet*> seen;  // by content hash
    std::vector<const core::SpecifierSet*> list;                           // distinct contents
  };
  std::unordered_map<std::string, Lists> lists_;
};

bool all_match(const core::SpecifierSet& set, const core::Version& version) {
  const auto& specifiers = set.specifiers();
  return std::all_of(specifiers.begin(), specifiers.end(),
                     [&](const core::Specifier& s) { return s.matches(version); });
}

// Which of `specifiers` each version satisfies, one byte per specifier.
std::string answers(const std::vector<const core::SpecifierSet*>& specifiers,
                    const core::Version& version) {
  std::string out(specifiers.size(), '0');
  for (std::size_t i = 0; i < specifiers.size(); ++i) {
    if (all_match(*specifiers[i], version)) out[i] = '1';
  }
  return out;
}

// The records of one name, newest first; each that a kept, newer alike record stands for is
// left out.
void keep_newest_alike(const Database& database, std::vector<RecordId> ids,
                       const std::vector<const core::SpecifierSet*>& specifiers,
                       std::vector<bool>& included) {
  const auto& records = database.records();
  std::stable_sort(ids.begin(), ids.end(),
                   [&](RecordId a, RecordId b) { return records[a].version > records[b].version; });
  // Answers are worked out only for records that have an alike kept record to compare with:
  // most records have none, and matching every specifier on the name is the costly part.
  struct Kept {
    RecordId id;
    std::optional<std::string> answers;
  };
  std::unordered_multimap<std::size_t, Kept> kept;  // by requirement hash
  for (const RecordId id : ids) {
    const PackageRecord& record = records[id];
    std::optional<std::string> said;
    const std::size_t key = hash_of(record.requirements);
    auto [first, last] = kept.equal_range(key);
    const bool stood_for = std::any_of(first, last, [&](auto& entry) {
      Kept& other = entry.second;
      if (!alike(records[other.id], record)) return false;
      if (!other.answers) other.answers = answers(specifiers, records[other.id].version);
      if (!said) said = answers(specifiers, record.version);
      return *other.answers == *said;
    });
    if (stood_for) {
      included[id] = false;
    } else {
      kept.emplace(key, Kept{id, std::move(said)});
    }
  }
}

}  // namespace

void drop_alike_versions(const Database& database, const Request& request,
                         std::vector<bool>& included) {
  const auto& records = database.records();
  // Candidates: included records that only answer to their own name.
  std::unordered_map<std::string, std::vector<RecordId>> by_name;
  for (RecordId id = 0; id < records.size(); ++id) {
    const PackageRecord& r = records[id];
    if (included[id] && r.kind == RecordKind::available && r.provides.empty())
      by_name[r.name].push_back(id);
  }
  std::erase_if(by_name, [](const auto& entry) { return entry.second.size() < 2; });
  if (by_name.empty()) return;

  SpecifiersByName specifiers(by_name);
  for (RecordId id = 0; id < records.size(); ++id) {
    if (!included[id] || records[id].kind == RecordKind::system) continue;
    specifiers.add(records[id].requirements);
    specifiers.add(records[id].conflicts);
  }
  for (const Dependency& root : request.requirements)
    specifiers.add(normalize_package_name(root.name), root.specifier);
  for (const ImposedConflict& conflict : request.conflicts) {
    specifiers.add(normalize_package_name(conflict.subject.name), conflict.subject.specifier);
    if (conflict.other)
      specifiers.add(normalize_package_name(conflict.other->name), conflict.other->specifier);
  }
  for (const auto* list : {&request.preferred, &request.disfavored, &request.later_preferences}) {
    for (const Preference& p : *list) specifiers.add(normalize_package_name(p.name), p.versions);
  }
  for (auto& [name, ids] : by_name)
    keep_newest_alike(database, std::move(ids), specifiers.of(name), included);
}

}  // namespace bevenv::solver::detail
