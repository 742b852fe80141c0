// Request::merge_alike_versions leaves out of the pool the versions that no specifier tells
// apart from a newer one with the same records (alike_versions.hpp). test_bruteforce checks its
// solutions against exhaustive search; here the reference is the same request solved over every
// version. Solvability is always the same. The solution mostly is: libsolv's choice can depend
// on the order in which it meets its rules, and a smaller pool meets them in another order, so a
// few universes get another valid solution (newer versions, in the cases seen).
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bevenv/solver/solve.hpp"
#include "scenario.hpp"

using namespace bevenv::solver;
using bevenv::core::SpecifierSet;
using bevenv::core::Version;

namespace {

SpecifierSet spec(const std::string& text) { return SpecifierSet::parse(text).value(); }

std::vector<std::string> chosen(const std::variant<Solution, Unsolvable>& result) {
  std::vector<std::string> out;
  for (const auto& p : std::get<Solution>(result).packages)
    out.push_back(p.name + " " + p.version.to_string());
  return out;
}

Request merged(Request request) {
  request.merge_alike_versions = true;
  return request;
}

// Names with runs of versions that share their requirements (as the generated layer's releases
// do), coarse specifiers on them, pre-releases, flags, conflicts and preferences.
struct RandomUniverse {
  Database db;
  Request request;
  std::vector<Preference> later;

  explicit RandomUniverse(std::mt19937& rng) {
    auto roll = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const std::size_t names = 2 + roll(4);
    auto random_dep = [&](std::size_t not_name) {
      std::size_t target = roll(names);
      if (target == not_name) target = (target + 1) % names;
      const std::string name = "p" + std::to_string(target);
      const std::size_t low = 1 + roll(30);
      const std::size_t kind = roll(4);
      const std::string text = kind == 0   ? "==" + std::to_string(low) + ".0"
                               : kind == 1 ? ">=" + std::to_string(low) + ".0"
                               : kind == 2 ? "<" + std::to_string(low) + ".0"
                                           : ">=" + std::to_string(low) +
                                                 ".0,<=" + std::to_string(low + roll(10)) + ".0";
      return Dependency{name, spec(text), "origin"};
    };
    for (std::size_t n = 0; n < names; ++n) {
      const std::string name = "p" + std::to_string(n);
      std::vector<Dependency> shared;  // a run of versions keeps its requirements
      bool disfavored = false;
      for (std::size_t v = 1, count = 5 + roll(30); v <= count; ++v) {
        if (v == 1 || roll(6) == 0) {
          shared.clear();
          for (std::size_t r = roll(3); r > 0; --r) shared.push_back(random_dep(n));
          disfavored = roll(10) == 0;
        }
        PackageRecord record;
        record.name = name;
        const std::string suffix = roll(12) == 0 ? "rc1" : "";
        record.version = Version::parse(std::to_string(v) + ".0" + suffix).value();
        record.requirements = shared;
        if (roll(15) == 0) record.conflicts.push_back(random_dep(n));
        record.preferred = roll(20) == 0;
        record.disfavored = disfavored;
        db.add(std::move(record));
      }
    }
    for (std::size_t r = 1 + roll(3); r > 0; --r) request.requirements.push_back(random_dep(names));
    if (roll(4) == 0) request.conflicts.push_back({random_dep(names), std::nullopt, "forbidden"});
    if (roll(4) == 0) request.conflicts.push_back({random_dep(names), random_dep(names), "x"});
    if (roll(3) == 0) {
      const Dependency d = random_dep(names);
      request.preferred.push_back({d.name, d.specifier});
    }
    if (roll(4) == 0) {
      const Dependency d = random_dep(names);
      request.disfavored.push_back({d.name, d.specifier});
    }
    if (roll(2) == 0) {
      const Dependency d = random_dep(names);
      later.push_back({d.name, d.specifier});
    }
  }
};

}  // namespace

TEST_CASE("merging alike versions gives the answers of the whole pool", "[solver][alike]") {
  std::mt19937 rng(20261204);
  std::size_t solvable = 0;
  std::size_t unsolvable = 0;
  std::size_t other_choice = 0;
  for (int round = 0; round < 400; ++round) {
    RandomUniverse u(rng);
    const auto reference = solve(u.db, u.request);
    const auto fewer = solve(u.db, merged(u.request));
    REQUIRE(reference.index() == fewer.index());
    if (std::holds_alternative<Solution>(reference)) {
      ++solvable;
      if (chosen(fewer) != chosen(reference)) ++other_choice;
    } else {
      ++unsolvable;
    }
  }
  WARN("alike versions merged: " << solvable << " solvable (" << other_choice
                                 << " with another valid choice), " << unsolvable << " unsolvable");
  CHECK(solvable > 60);
  CHECK(unsolvable > 60);
  CHECK(other_choice * 20 < solvable);
}

TEST_CASE("preferences added later find the versions they favour", "[solver][alike]") {
  std::mt19937 rng(4242);
  std::size_t compared = 0;
  std::size_t other_choice = 0;
  for (int round = 0; round < 300; ++round) {
    RandomUniverse u(rng);
    if (u.later.empty()) continue;
    Session whole(u.db, u.request);
    Request asked = merged(u.request);
    asked.later_preferences = u.later;
    Session fewer(u.db, asked);
    const auto first = whole.solve();
    REQUIRE(first.index() == fewer.solve().index());
    if (!std::holds_alternative<Solution>(first)) continue;
    whole.prefer(u.later);
    fewer.prefer(u.later);
    const auto reference = whole.solve();
    const auto answer = fewer.solve();
    REQUIRE(reference.index() == answer.index());
    if (!std::holds_alternative<Solution>(reference)) continue;
    ++compared;
    if (chosen(answer) != chosen(reference)) ++other_choice;
    // A preference the whole pool could honour is honoured over the merged one too.
    for (const Preference& p : u.later) {
      const auto* want = std::get<Solution>(reference).find(p.name);
      const auto* got = std::get<Solution>(answer).find(p.name);
      if (want != nullptr && p.versions.contains(want->version, true)) {
        REQUIRE(got != nullptr);
        CHECK(p.versions.contains(got->version, true));
      }
    }
  }
  WARN("later preferences: " << compared << " compared, " << other_choice << " other choices");
  CHECK(compared > 30);
  CHECK(other_choice * 10 < compared);
}

TEST_CASE("a version only a preference tells apart is kept", "[solver][alike]") {
  auto scenario = testing::parse_scenario(R"(
package six 1.14.0
package six 1.15.0
package six 1.16.0
package app 1.0
  requires six >=1.10
want app
prefer six ==1.15.0
)");
  const auto result = solve(scenario.database, merged(scenario.request));
  CHECK(chosen(result) == std::vector<std::string>{"app 1.0", "six 1.15.0"});
  // Without the preference the versions are alike, and the newest stands for them.
  scenario.request.preferred.clear();
  CHECK(chosen(solve(scenario.database, merged(scenario.request))) ==
        std::vector<std::string>{"app 1.0", "six 1.16.0"});
}
