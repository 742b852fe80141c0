// PEP 440 versions: parsing, normal form and order against Python's packaging.
#include <algorithm>
#include <random>

#include "bevenv/core/version.hpp"
#include "corpus.hpp"

using bevenv::conformance::Disagreements;
using bevenv::conformance::load_jsonl;
using bevenv::core::Version;
using nlohmann::json;

namespace {

struct Ranked {
  Version version;
  std::uint64_t rank = 0;
  std::string input;
};

std::string show(const json& record) { return record.dump(); }

void check_parts(const json& r, const Version& v, Disagreements& bad) {
  const auto expect = [&](bool ok, const std::string& what) {
    if (!ok) bad.add(what + " differs for " + show(r) + ": bevenv says " + v.to_string());
  };
  expect(v.to_string() == r["normalized"].get<std::string>(), "normal form");
  expect(v.public_string() == r["public"].get<std::string>(), "public part");
  expect(v.base_version().to_string() == r["base"].get<std::string>(), "base version");
  expect(v.local_string() == r["local"].get<std::string>(), "local label");
  expect(v.epoch() == r["epoch"].get<std::uint64_t>(), "epoch");
  expect(v.release() == r["release"].get<std::vector<std::uint64_t>>(), "release");
  expect(v.is_prerelease() == r["is_pre"].get<bool>(), "is_prerelease");
  expect(v.is_postrelease() == r["is_post"].get<bool>(), "is_postrelease");
  expect(v.is_devrelease() == r["is_dev"].get<bool>(), "is_devrelease");
  const auto again = Version::parse(v.to_string());
  expect(again && *again == v && again->to_string() == v.to_string(), "round trip");
  expect(v.without_local().to_string() == r["public"].get<std::string>(), "without_local");
}

}  // namespace

TEST_CASE("versions parse and normalize exactly as packaging does", "[conformance][version]") {
  const std::vector<json> records = load_jsonl("versions.jsonl");
  REQUIRE(records.size() >= 20000);
  Disagreements bad;
  std::size_t accepted = 0;
  std::size_t rejected = 0;
  for (const json& r : records) {
    const std::string input = r["input"].get<std::string>();
    const auto parsed = Version::parse(input);
    if (!r["valid"].get<bool>()) {
      ++rejected;
      if (parsed) bad.add("bevenv accepts what packaging rejects: " + show(r));
      continue;
    }
    if (r.contains("too_large")) {
      // Documented difference: packaging has unbounded integers, bevenv stops at 2^64-1.
      ++rejected;
      if (parsed || parsed.error().message.find("too large") == std::string::npos) {
        bad.add("expected a too-large error for " + show(r));
      }
      continue;
    }
    ++accepted;
    if (!parsed) {
      bad.add("bevenv rejects " + show(r) + ": " + parsed.error().to_string());
      continue;
    }
    check_parts(r, *parsed, bad);
  }
  INFO(accepted << " accepted, " << rejected << " rejected, " << bad.count() << " disagreements");
  CHECK(accepted >= 15000);
  CHECK(rejected >= 2000);
  INFO(bad.first_few());
  CHECK(bad.count() == 0);
}

TEST_CASE("versions sort exactly as packaging sorts them", "[conformance][version]") {
  std::vector<Ranked> ranked;
  for (const json& r : load_jsonl("versions.jsonl")) {
    if (!r.contains("rank")) continue;
    const auto parsed = Version::parse(r["input"].get<std::string>());
    REQUIRE(parsed);
    ranked.push_back({*parsed, r["rank"].get<std::uint64_t>(), r["input"].get<std::string>()});
  }
  REQUIRE(ranked.size() >= 15000);
  Disagreements bad;

  std::vector<Ranked> sorted = ranked;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Ranked& a, const Ranked& b) { return a.version < b.version; });
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const Ranked& a = sorted[i - 1];
    const Ranked& b = sorted[i];
    const bool equal = a.version == b.version;
    if (a.rank > b.rank || equal != (a.rank == b.rank)) {
      bad.add("order of `" + a.input + "` and `" + b.input + "` differs from packaging");
    }
  }

  // Random pairs catch an order that is not transitive, which sorting alone may hide.
  std::mt19937_64 random(440);
  std::uniform_int_distribution<std::size_t> pick(0, ranked.size() - 1);
  for (int i = 0; i < 1000000; ++i) {
    const Ranked& a = ranked[pick(random)];
    const Ranked& b = ranked[pick(random)];
    if ((a.version <=> b.version) != (a.rank <=> b.rank)) {
      bad.add("`" + a.input + "` <=> `" + b.input + "` differs from packaging");
    }
  }
  INFO(ranked.size() << " ranked versions, " << bad.count() << " disagreements");
  INFO(bad.first_few());
  CHECK(bad.count() == 0);
}
