// The EVR encoding must make libsolv order versions exactly as PEP 440 does. The oracle is
// Python's `packaging`: both corpora are generated at build time with their PEP 440 ranks.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "evr.hpp"
#include "solv/pool.hpp"

namespace {

using bevenv::core::Version;
using bevenv::solver::detail::to_evr;

struct Ranked {
  long rank = 0;
  std::string text;
  std::string evr;
};

int sign(long v) { return (v > 0) - (v < 0); }

std::string corpus_path(const char* file) {
  return std::string(BEVENV_SOLVER_CORPUS_DIR) + "/" + file;
}

Ranked make(long rank, std::string text) {
  auto parsed = Version::parse(text);
  INFO("version " << text);
  REQUIRE(parsed.has_value());
  return {rank, text, to_evr(parsed.value())};
}

std::vector<Ranked> load_conformance_versions() {
  std::ifstream in(corpus_path("versions.jsonl"));
  REQUIRE(in.good());
  std::vector<Ranked> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto record = nlohmann::json::parse(line);
    if (!record.contains("rank")) continue;  // invalid or beyond 64-bit numbers
    out.push_back(make(record["rank"].get<long>(), record["input"].get<std::string>()));
  }
  return out;
}

std::vector<Ranked> load_grid() {
  std::ifstream in(corpus_path("version_grid.txt"));
  REQUIRE(in.good());
  std::vector<Ranked> out;
  long rank = 0;
  std::string text;
  while (in >> rank >> text) out.push_back(make(rank, text));
  return out;
}

// Checks every adjacent pair of the PEP 440 order plus `random_pairs` random pairs, and that
// sorting by libsolv's comparison gives back the oracle's ranks. Returns the checks made.
std::size_t check_agreement(std::vector<Ranked> versions, std::size_t random_pairs) {
  bevenv::solver::solv::PackagePool pool;
  std::size_t checks = 0;
  std::vector<std::string> disagreements;
  auto check = [&](const Ranked& a, const Ranked& b) {
    ++checks;
    const int got = sign(pool.compare_evr(a.evr, b.evr));
    const int want = sign(a.rank - b.rank);
    if (got != want && disagreements.size() < 20) {
      disagreements.push_back(a.text + " vs " + b.text + ": libsolv " + std::to_string(got) +
                              ", packaging " + std::to_string(want) + " (" + a.evr + " vs " +
                              b.evr + ")");
    }
  };
  std::sort(versions.begin(), versions.end(),
            [](const Ranked& a, const Ranked& b) { return a.rank < b.rank; });
  for (std::size_t i = 0; i + 1 < versions.size(); ++i) {
    check(versions[i], versions[i + 1]);
    check(versions[i + 1], versions[i]);
  }
  std::mt19937_64 rng(440);
  std::uniform_int_distribution<std::size_t> pick(0, versions.size() - 1);
  for (std::size_t i = 0; i < random_pairs; ++i) check(versions[pick(rng)], versions[pick(rng)]);

  std::vector<Ranked> by_libsolv = versions;
  std::shuffle(by_libsolv.begin(), by_libsolv.end(), rng);
  std::stable_sort(by_libsolv.begin(), by_libsolv.end(), [&](const Ranked& a, const Ranked& b) {
    return pool.compare_evr(a.evr, b.evr) < 0;
  });
  for (std::size_t i = 0; i < by_libsolv.size(); ++i) {
    ++checks;
    if (by_libsolv[i].rank != versions[i].rank && disagreements.size() < 20) {
      disagreements.push_back("sorted position " + std::to_string(i) + ": " + by_libsolv[i].text +
                              " where packaging has " + versions[i].text);
    }
  }
  for (const auto& d : disagreements) UNSCOPED_INFO(d);
  CHECK(disagreements.empty());
  return checks;
}

}  // namespace

TEST_CASE("EVR strings order as packaging on the conformance version corpus", "[solver][evr]") {
  const auto versions = load_conformance_versions();
  REQUIRE(versions.size() > 10000);
  const std::size_t checks = check_agreement(versions, 200000);
  WARN("conformance corpus: " << versions.size() << " versions, " << checks << " comparisons");
}

TEST_CASE("EVR strings order as packaging on the dense suffix/local grid", "[solver][evr]") {
  const auto versions = load_grid();
  REQUIRE(versions.size() > 5000);
  const std::size_t checks = check_agreement(versions, 200000);
  WARN("version grid: " << versions.size() << " versions, " << checks << " comparisons");
}

TEST_CASE("EVR encoding examples", "[solver][evr]") {
  auto evr = [](const char* text) { return to_evr(Version::parse(text).value()); };
  CHECK(evr("1.0.0") == "0:1");
  CHECK(evr("0.0") == "0:0");
  CHECK(evr("1!2.0rc1.post2.dev3+cu113.7") == "1:2~d1p2~x3lacuBBD~b7~");
  CHECK(evr("1.0.dev4") == "0:1~a4");
  CHECK(evr("1.0b2") == "0:1~c2");
}
