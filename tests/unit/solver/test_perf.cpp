// Solve times on synthetic indexes of 100 000 package versions (2 000 names x 50 versions).
#include <catch2/catch.hpp>
#include <chrono>
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

TEST_CASE("a request over an index of 100k versions resolves quickly", "[solver][perf]") {
  const Database db = synthetic_index(2000, 50, 200);  // a request reaches <= 200 names
  REQUIRE(db.size() == 100000);
  std::size_t chosen = 0;
  const double seconds = solve_seconds(db, {400, 410, 450, 500}, chosen);
  WARN("index of 100k versions, request reaching one stack of 200 names (10k versions): "
       << seconds * 1000 << " ms, " << chosen << " packages chosen");
#ifdef NDEBUG
  CHECK(seconds < 1.0);
#endif
}

// Every one of the 100k versions is reachable and ~1 900 packages end up installed; libsolv
// then writes one "same name" rule per pair of versions of a name (2.45M rules). Reported,
// not asserted: run with `test_solver "[.dense]"`.
TEST_CASE("dense worst case: all 100k versions reachable", "[solver][perf][.dense]") {
  const Database db = synthetic_index(2000, 50, 2000);
  std::size_t chosen = 0;
  const double seconds = solve_seconds(db, {0, 10, 100, 500, 1000, 1500}, chosen);
  WARN("dense 100k versions: " << seconds * 1000 << " ms, " << chosen << " packages chosen");
}
