// Correct solutions on synthetic indexes of about 100 000 package versions: 2 000 names x 50
// versions, and bench/universes.py's deep conflict chains (1 001 names x 99 versions). The
// times are printed, not asserted: the speed targets live in bench/ (lock_universes.py).
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <random>
#include <string>

#include "bevenv/solver/solve.hpp"

using namespace bevenv::solver;

namespace {

bevenv::core::SpecifierSet spec(const std::string& text) {
  return bevenv::core::SpecifierSet::parse(text).value();
}

std::string version_text(std::size_t v) {
  return std::to_string(v / 10) + "." + std::to_string(v % 10);
}

// Names are grouped in stacks of `stack_size`; each version requires 3 packages further down
// its own stack with a random lower bound, so a request reaches one stack, and every request
// has a solution (the newest versions at the bottom of a stack have no requirements).
Database synthetic_index(std::size_t names, std::size_t versions, std::size_t stack_size) {
  std::mt19937 rng(7);
  Database db;
  for (std::size_t p = 0; p < names; ++p) {
    const std::size_t stack_end = (p / stack_size + 1) * stack_size;
    for (std::size_t v = 0; v < versions; ++v) {
      PackageRecord record;
      record.name = "pkg" + std::to_string(p);
      record.version = bevenv::core::Version::parse(version_text(v)).value();
      for (int d = 0; d < 3 && p + 1 < stack_end; ++d) {
        const std::size_t target = p + 1 + rng() % std::min<std::size_t>(50, stack_end - p - 1);
        record.requirements.push_back({"pkg" + std::to_string(target),
                                       spec(">=" + version_text(rng() % versions)), "synthetic"});
      }
      db.add(std::move(record));
    }
  }
  return db;
}

double solve_seconds(const Database& db, std::initializer_list<int> roots, std::size_t& chosen) {
  Request request;
  for (int p : roots) {
    request.requirements.push_back({"pkg" + std::to_string(p), spec(">=1.0"), "the request"});
  }
  const auto start = std::chrono::steady_clock::now();
  const auto result = solve(db, request);
  const auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
  REQUIRE(std::holds_alternative<Solution>(result));
  chosen = std::get<Solution>(result).packages.size();
  return elapsed.count();
}

}  // namespace

TEST_CASE("a request over an index of 100k versions resolves", "[solver][perf]") {
  const Database db = synthetic_index(2000, 50, 200);  // a request reaches <= 200 names
  REQUIRE(db.size() == 100000);
  std::size_t chosen = 0;
  const double seconds = solve_seconds(db, {400, 410, 450, 500}, chosen);
  WARN("index of 100k versions, request reaching one stack of 200 names (10k versions): "
       << seconds * 1000 << " ms, " << chosen << " packages chosen");
}

// Every one of the 100k versions is reachable and ~1 900 packages end up installed. With 50
// versions a name, each name gets a version ladder rather than libsolv's rule per pair of
// versions (2.45M rules in all). Reported, not asserted: run with `test_solver "[.dense]"`.
TEST_CASE("dense worst case: all 100k versions reachable", "[solver][perf][.dense]") {
  const Database db = synthetic_index(2000, 50, 2000);
  std::size_t chosen = 0;
  const double seconds = solve_seconds(db, {0, 10, 100, 500, 1000, 1500}, chosen);
  WARN("dense 100k versions: " << seconds * 1000 << " ms, " << chosen << " packages chosen");
}

namespace {

// bench/universes.py's chain_universe: `chains` chains of `depth` names with `versions`
// versions each; version v of a link requires the next link in [v-2, v], the last link
// requires `hub==v`, and the request caps `hub` at versions/3, so the newest choice at every
// level fails and each chain must settle lower.
Database chain_universe(int chains, int depth, int versions) {
  Database db;
  auto text = [](int v) { return std::to_string(v) + ".0"; };
  for (int c = 0; c < chains; ++c) {
    for (int j = 0; j < depth; ++j) {
      for (int v = 1; v <= versions; ++v) {
        PackageRecord record;
        record.name = "c" + std::to_string(c) + "-l" + std::to_string(j);
        record.version = bevenv::core::Version::parse(text(v)).value();
        if (j + 1 < depth) {
          record.requirements.push_back({"c" + std::to_string(c) + "-l" + std::to_string(j + 1),
                                         spec(">=" + text(std::max(v - 2, 1)) + ",<=" + text(v)),
                                         "chain"});
        } else {
          record.requirements.push_back({"hub", spec("==" + text(v)), "chain"});
        }
        db.add(std::move(record));
      }
    }
  }
  for (int v = 1; v <= versions; ++v) {
    PackageRecord record;
    record.name = "hub";
    record.version = bevenv::core::Version::parse(text(v)).value();
    db.add(std::move(record));
  }
  return db;
}

}  // namespace

// 99 099 versions, 99 per name: libsolv's pairwise same-name rules alone were 4.9M here.
TEST_CASE("deep conflict chains over 99k versions resolve to a valid solution", "[solver][perf]") {
  const int versions = 99;
  const Database db = chain_universe(20, 50, versions);
  REQUIRE(db.size() == 99099);
  Request request;
  for (int c = 0; c < 20; ++c) {
    request.requirements.push_back({"c" + std::to_string(c) + "-l0", spec(""), "the request"});
  }
  request.requirements.push_back({"hub", spec("<=" + std::to_string(versions / 3) + ".0"), ""});
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  const auto result = solve(db, request);
  const double cpu_seconds =
      static_cast<double>(std::clock() - cpu_start) / static_cast<double>(CLOCKS_PER_SEC);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(std::holds_alternative<Solution>(result));
  const Solution& solution = std::get<Solution>(result);
  // One version per name, every requirement met by the chosen version of its name.
  REQUIRE(solution.packages.size() == 20 * 50 + 1);
  for (const ChosenPackage& package : solution.packages) {
    for (const Dependency& dependency : db.record(package.record).requirements) {
      const ChosenPackage* target = solution.find(dependency.name);
      REQUIRE(target != nullptr);
      CHECK(dependency.specifier.contains(target->version, true));
    }
  }
  CHECK(solution.find("hub")->version <= bevenv::core::Version::parse("33.0").value());
  // CPU time too: on a shared machine the wall time says more about the neighbours.
  WARN("chain universe of 99k versions: " << seconds * 1000 << " ms (" << cpu_seconds * 1000
                                          << " ms CPU)");
}
