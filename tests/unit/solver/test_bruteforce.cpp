// An independent oracle for small universes: every assignment of at most one version per name
// is enumerated, so the solver must find a solution exactly when one exists, and every
// solution it returns must satisfy every constraint. The candidate sets come from
// core::SpecifierSet::filter (packaging's filter, checked by the conformance tests), not from
// the solver's own code.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bevenv/solver/solve.hpp"

using namespace bevenv::solver;
using bevenv::core::SpecifierSet;
using bevenv::core::Version;

namespace {

const char* const kVersions[] = {"1.0", "1.1", "1.0.post1", "2.0rc1", "2.0", "2.1", "3.0.dev1"};
const char* const kSpecs[] = {"",         ">=1.1", "<2",    "==1.0",     "!=2.0", "~=1.0",
                              ">=2.0rc1", "==2.*", "<=1.1", ">1.0,<2.1", ">=3"};

SpecifierSet parse_spec(const char* text) { return SpecifierSet::parse(text).value(); }

struct Universe {
  Database db;
  Request request;
  std::vector<std::string> names;
};

// With `runs`, consecutive versions of a name often share their requirements, as releases do:
// what Request::merge_alike_versions merges.
Universe random_universe(std::mt19937& rng, bool runs = false) {
  auto roll = [&](unsigned n) { return static_cast<std::size_t>(rng() % n); };
  Universe u;
  const std::size_t name_count = 2 + roll(3);
  for (std::size_t n = 0; n < name_count; ++n) u.names.push_back("p" + std::to_string(n));
  auto random_dep = [&](std::size_t not_name) {
    std::size_t target = roll(static_cast<unsigned>(name_count));
    if (target == not_name) target = (target + 1) % name_count;
    return Dependency{u.names[target], parse_spec(kSpecs[roll(std::size(kSpecs))]), "origin"};
  };
  for (std::size_t n = 0; n < name_count; ++n) {
    std::vector<std::size_t> picks;
    for (std::size_t v = 0; v < std::size(kVersions); ++v) {
      if (roll(2) == 0) picks.push_back(v);
    }
    std::vector<Dependency> shared;
    for (std::size_t v : picks) {
      PackageRecord record;
      record.name = u.names[n];
      record.version = Version::parse(kVersions[v]).value();
      if (!runs || shared.empty() || roll(3) == 0) {
        shared.clear();
        for (std::size_t r = roll(3); r > 0; --r) shared.push_back(random_dep(n));
      }
      record.requirements = shared;
      if (roll(6) == 0) record.conflicts.push_back(random_dep(n));
      if (roll(25) == 0) record.kind = RecordKind::system;
      u.db.add(std::move(record));
    }
  }
  for (std::size_t r = 1 + roll(2); r > 0; --r) {
    u.request.requirements.push_back(random_dep(name_count));
  }
  if (roll(4) == 0) {
    u.request.conflicts.push_back({random_dep(name_count), random_dep(name_count), "imposed"});
  }
  if (roll(6) == 0) u.request.conflicts.push_back({random_dep(name_count), std::nullopt, "forbid"});
  return u;
}

// The requirements in play: the roots and those of the (non-system) records of names reachable
// from them, plus, as pip merges them, the intersection of several requirements on one name
// within the roots or within one record.
std::vector<Dependency> requirements_in_play(const Universe& u) {
  std::vector<Dependency> found;
  auto add_group = [&](const std::vector<Dependency>& group) {
    std::map<std::string, std::pair<SpecifierSet, int>> merged;
    for (const auto& d : group) {
      found.push_back(d);
      auto [it, inserted] = merged.try_emplace(d.name, d.specifier, 1);
      if (!inserted) it->second = {it->second.first.intersect(d.specifier), it->second.second + 1};
    }
    for (const auto& [name, entry] : merged) {
      if (entry.second > 1) found.push_back({name, entry.first, {}});
    }
  };
  add_group(u.request.requirements);
  std::vector<std::string> pending;
  std::map<std::string, bool> seen;
  auto visit = [&](const std::string& name) {
    if (!seen[name]) pending.push_back(name), seen[name] = true;
  };
  for (const auto& root : u.request.requirements) visit(root.name);
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    for (RecordId id : u.db.find(name)) {
      const PackageRecord& r = u.db.record(id);
      if (r.kind == RecordKind::system) continue;
      add_group(r.requirements);
      for (const auto& d : r.requirements) visit(d.name);
    }
  }
  return found;
}

// The versions a requirement accepts. A pre-release counts when some requirement in play on
// its name admits it as packaging's filter does (naming a pre-release, or no final matching).
std::vector<Version> accepted(const Universe& u, const Dependency& d) {
  std::vector<Version> all;
  for (RecordId id : u.db.find(d.name)) all.push_back(u.db.record(id).version);
  std::vector<Version> enabled;
  for (const Dependency& other : requirements_in_play(u)) {
    if (other.name != d.name) continue;
    for (const auto& v : other.specifier.filter(all)) enabled.push_back(v);
  }
  std::vector<Version> out;
  for (const auto& v : all) {
    if (!d.specifier.contains(v, true)) continue;
    if (!v.is_prerelease()) {
      out.push_back(v);
      continue;
    }
    for (const auto& e : enabled) {
      if (e == v) {
        out.push_back(v);
        break;
      }
    }
  }
  return out;
}

bool contains(const std::vector<Version>& list, const Version& v) {
  for (const auto& x : list) {
    if (x == v) return true;
  }
  return false;
}

// Chosen records by name: one at most, except that every system record is kept, so a name
// with system records has exactly those (several `__sm` capabilities, say).
using Choice = std::map<std::string, std::vector<const PackageRecord*>>;

// Every constraint of the universe, checked directly; returns the first violation.
std::string violation(const Universe& u, const Choice& choice) {
  auto chosen = [&](const std::string& name) {
    auto it = choice.find(name);
    return it == choice.end() ? std::vector<const PackageRecord*>{} : it->second;
  };
  auto satisfied = [&](const Dependency& d) {
    const auto ok = accepted(u, d);
    for (const auto* r : chosen(d.name)) {
      if (contains(ok, r->version)) return true;
    }
    return false;
  };
  auto chosen_in = [&](const Dependency& d) {
    for (const auto* r : chosen(d.name)) {
      if (d.specifier.contains(r->version, true)) return true;
    }
    return false;
  };
  for (const auto& root : u.request.requirements) {
    if (!satisfied(root)) return "root " + root.name + " " + root.specifier.to_string();
  }
  for (const auto& record : u.db.records()) {
    const auto kept = chosen(record.name);
    const bool is_kept = std::find(kept.begin(), kept.end(), &record) != kept.end();
    if (record.kind == RecordKind::system && !is_kept) return "system " + record.name + " dropped";
    if (!is_kept || record.kind == RecordKind::system) continue;  // system: facts, not solved
    for (const auto& d : record.requirements) {
      if (!satisfied(d)) return record.name + " requires " + d.name + " " + d.specifier.to_string();
    }
    for (const auto& d : record.conflicts) {
      if (chosen_in(d)) return record.name + " conflicts with " + d.name;
    }
  }
  for (const auto& c : u.request.conflicts) {
    if (!c.other) {
      if (chosen_in(c.subject)) return "forbidden " + c.subject.name;
      continue;
    }
    // One version per name: a conflict of a package with itself never binds; nor does one
    // between two system records (both are facts already).
    if (c.other->name == c.subject.name) continue;
    for (const auto* a : chosen(c.subject.name)) {
      for (const auto* b : chosen(c.other->name)) {
        const bool both_system = a->kind == RecordKind::system && b->kind == RecordKind::system;
        if (!both_system && c.subject.specifier.contains(a->version, true) &&
            c.other->specifier.contains(b->version, true)) {
          return "imposed conflict between " + a->name + " and " + b->name;
        }
      }
    }
  }
  return {};
}

// The universe in scenario.hpp's format, shown when a round fails.
std::string describe(const Universe& u) {
  std::string out;
  for (const auto& r : u.db.records()) {
    out += "package " + r.name + " " + r.version.to_string() +
           (r.kind == RecordKind::system ? " system\n" : "\n");
    for (const auto& d : r.requirements)
      out += "  requires " + d.name + " " + d.specifier.to_string() + "\n";
    for (const auto& d : r.conflicts)
      out += "  conflicts " + d.name + " " + d.specifier.to_string() + "\n";
  }
  for (const auto& d : u.request.requirements)
    out += "want " + d.name + " " + d.specifier.to_string() + "\n";
  for (const auto& c : u.request.conflicts) {
    out += c.other ? "conflict " + c.subject.name + " " + c.subject.specifier.to_string() +
                         " with " + c.other->name + " " + c.other->specifier.to_string() + "\n"
                   : "forbid " + c.subject.name + " " + c.subject.specifier.to_string() + "\n";
  }
  return out;
}

bool exists_solution(const Universe& u) {
  // Per name: its system records, or else nothing or any one of its versions.
  std::vector<std::vector<std::vector<const PackageRecord*>>> options;
  for (const auto& name : u.names) {
    std::vector<const PackageRecord*> system;
    std::vector<std::vector<const PackageRecord*>> o{{}};
    for (RecordId id : u.db.find(name)) {
      const PackageRecord* r = &u.db.record(id);
      if (r->kind == RecordKind::system) system.push_back(r);
      o.push_back({r});
    }
    options.push_back(system.empty() ? o : std::vector<std::vector<const PackageRecord*>>{system});
  }
  std::vector<std::size_t> at(options.size(), 0);
  while (true) {
    Choice choice;
    for (std::size_t i = 0; i < options.size(); ++i) {
      if (!options[i][at[i]].empty()) choice[u.names[i]] = options[i][at[i]];
    }
    if (violation(u, choice).empty()) return true;
    std::size_t i = 0;
    while (i < at.size() && ++at[i] == options[i].size()) at[i++] = 0;
    if (i == at.size()) return false;
  }
}

// Solves `u` (merging alike versions when asked) and checks the answer against exhaustive
// search: solvable exactly when a solution exists, and the solution satisfies every constraint.
// Returns whether it was solvable.
bool agrees_with_search(const Universe& u, bool merge_alike) {
  INFO(describe(u));
  const bool expected = exists_solution(u);
  Request request = u.request;
  request.merge_alike_versions = merge_alike;
  const auto result = solve(u.db, request);
  REQUIRE(std::holds_alternative<Solution>(result) == expected);
  const auto* solution = std::get_if<Solution>(&result);
  if (solution == nullptr) {
    CHECK_FALSE(render_explanation(std::get<Unsolvable>(result)).empty());
    return false;
  }
  Choice choice;
  for (const auto& p : solution->packages) {
    const PackageRecord& record = u.db.record(p.record);
    auto& list = choice[p.name];
    // One version per name, system records aside.
    REQUIRE((list.empty() || record.kind == RecordKind::system));
    list.push_back(&record);
  }
  std::string chosen;
  for (const auto& [name, records] : choice) {
    for (const auto* r : records) chosen += name + " " + r->version.to_string() + "; ";
  }
  INFO("chosen: " << chosen);
  CHECK(violation(u, choice).empty());
  return true;
}

}  // namespace

// Rounds of random universes checked against exhaustive search; the counts of solvable and
// unsolvable ones, each of which must be frequent enough to mean something.
static void check_rounds(unsigned seed, int rounds, bool runs_and_merge, std::size_t at_least) {
  std::mt19937 rng(seed);
  std::size_t solvable = 0;
  std::size_t unsolvable = 0;
  for (int round = 0; round < rounds; ++round) {
    INFO("round " << round);
    const Universe u = random_universe(rng, runs_and_merge);
    (agrees_with_search(u, runs_and_merge) ? solvable : unsolvable) += 1;
  }
  WARN("exhaustive oracle: " << solvable << " solvable and " << unsolvable
                             << " unsolvable universes, all agreeing");
  CHECK(solvable > at_least);
  CHECK(unsolvable > at_least);
}

TEST_CASE("solver agrees with exhaustive search on random small universes", "[solver][oracle]") {
  check_rounds(20240611, 3000, false, 500);
}

TEST_CASE("merging alike versions agrees with exhaustive search", "[solver][oracle][alike]") {
  check_rounds(20261204, 2000, true, 300);
}
