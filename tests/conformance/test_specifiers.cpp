// PEP 440 specifiers and specifier sets against packaging: parsing, canonical text,
// membership (with the three pre-release policies) and filter().
#include <optional>
#include <string>

#include "bevenv/core/specifier.hpp"
#include "corpus.hpp"

using bevenv::conformance::Disagreements;
using bevenv::conformance::load_jsonl;
using bevenv::core::Specifier;
using bevenv::core::SpecifierSet;
using bevenv::core::Version;
using nlohmann::json;

namespace {

Version version_of(const json& text) {
  const auto parsed = Version::parse(text.get<std::string>());
  REQUIRE(parsed);
  return *parsed;
}

// Whether record `r` parsed as packaging parsed it, valid, so that the rest of it can be
// checked; a disagreement is added to `bad`. `kind` names what was parsed in the message.
template <class Parsed>
bool parsed_valid(const json& r, const Parsed& parsed, const std::string& kind,
                  Disagreements& bad) {
  if (r.contains("too_large")) {
    // Documented difference: packaging has unbounded integers, bevenv stops at 2^64-1.
    if (parsed || parsed.error().message.find("too large") == std::string::npos) {
      bad.add("expected a too-large error for " + r.dump());
    }
    return false;
  }
  if (parsed.has_value() != r["valid"].get<bool>()) {
    bad.add((parsed ? "bevenv accepts " + kind
                    : "bevenv rejects " + kind + "(" + parsed.error().to_string() + ") ") +
            r.dump());
    return false;
  }
  return parsed.has_value();
}

std::size_t check_set(const json& r, Disagreements& bad) {
  const auto parsed = SpecifierSet::parse(r["text"].get<std::string>());
  if (!parsed_valid(r, parsed, "", bad)) return 0;
  const SpecifierSet& set = *parsed;
  if (set.to_string() != r["str"].get<std::string>()) {
    bad.add("str() differs: bevenv `" + set.to_string() + "` for " + r.dump());
  }
  bool mentions = false;
  for (const Specifier& s : set.specifiers()) mentions = mentions || s.mentions_prerelease();
  if (mentions != r["prereleases"].get<bool>()) bad.add("prereleases differs for " + r.dump());
  std::size_t pairs = 0;
  for (const json& check : r["checks"]) {
    const Version v = version_of(check[0]);
    const bool got[3] = {set.contains(v), set.contains(v, true), set.contains(v, false)};
    for (int i = 0; i < 3; ++i) {
      if (got[i] != check[static_cast<std::size_t>(i) + 1].get<bool>()) {
        static constexpr const char* kPolicy[3] = {"unset", "True", "False"};
        bad.add("contains(" + check[0].get<std::string>() + ", prereleases=" + kPolicy[i] +
                ") differs for `" + r["text"].get<std::string>() + "`");
      }
    }
    ++pairs;
  }
  return pairs;
}

std::size_t check_spec(const json& r, Disagreements& bad) {
  const auto parsed = Specifier::parse(r["text"].get<std::string>());
  if (!parsed_valid(r, parsed, "specifier ", bad)) return 0;
  const Specifier& spec = *parsed;
  if (spec.to_string() != r["str"].get<std::string>() ||
      bevenv::core::operator_text(spec.op()) != r["operator"].get<std::string>() ||
      spec.version_text() != r["version"].get<std::string>()) {
    bad.add("text differs: bevenv `" + spec.to_string() + "` for " + r.dump());
  }
  if (spec.mentions_prerelease() != r["prereleases"].get<bool>()) {
    bad.add("prereleases differs for " + r.dump());
  }
  std::size_t pairs = 0;
  for (const json& check : r["checks"]) {
    if (spec.matches(version_of(check[0])) != check[1].get<bool>()) {
      bad.add("matches(" + check[0].get<std::string>() + ") differs for " + r.dump());
    }
    ++pairs;
  }
  return pairs;
}

void check_and(const json& r, Disagreements& bad) {
  const auto a = SpecifierSet::parse(r["a"].get<std::string>());
  const auto b = SpecifierSet::parse(r["b"].get<std::string>());
  if (!a || !b) {
    bad.add("bevenv rejects a side of " + r.dump());
    return;
  }
  if (a->intersect(*b).to_string() != r["str"].get<std::string>()) {
    bad.add("intersect differs: `" + a->intersect(*b).to_string() + "` for " + r.dump());
  }
}

}  // namespace

TEST_CASE("specifiers and sets agree with packaging", "[conformance][specifier]") {
  const auto records = load_jsonl("specifiers.jsonl");
  Disagreements bad;
  std::size_t pairs = 0;
  std::size_t valid_sets = 0;
  std::size_t invalid = 0;
  for (const json& r : records) {
    const std::string kind = r["kind"].get<std::string>();
    if (kind == "and") {
      check_and(r, bad);
      continue;
    }
    if (!r["valid"].get<bool>()) ++invalid;
    if (kind == "set") {
      if (r["valid"].get<bool>()) ++valid_sets;
      pairs += check_set(r, bad);
    } else {
      pairs += check_spec(r, bad);
    }
  }
  INFO(records.size() << " records, " << valid_sets << " valid sets, " << invalid
                      << " invalid texts, " << pairs << " (specifier, version) pairs, "
                      << bad.count() << " disagreements");
  CHECK(pairs >= 20000);
  CHECK(invalid >= 100);
  INFO(bad.first_few());
  CHECK(bad.count() == 0);
}

TEST_CASE("filter() agrees with packaging", "[conformance][specifier]") {
  const auto records = load_jsonl("filters.jsonl");
  REQUIRE(records.size() >= 1000);
  Disagreements bad;
  for (const json& r : records) {
    const auto set = SpecifierSet::parse(r["text"].get<std::string>());
    if (!set) {
      bad.add("bevenv rejects " + r.dump() + ": " + set.error().to_string());
      continue;
    }
    std::vector<Version> candidates;
    for (const json& c : r["candidates"]) candidates.push_back(version_of(c));
    const std::pair<const char*, std::optional<bool>> policies[] = {
        {"none", std::nullopt}, {"true", true}, {"false", false}};
    for (const auto& [key, policy] : policies) {
      std::vector<std::string> expected;
      for (const json& index : r[key]) {
        expected.push_back(candidates[index.get<std::size_t>()].to_string());
      }
      std::vector<std::string> got;
      for (const Version& v : set->filter(candidates, policy)) got.push_back(v.to_string());
      if (got != expected)
        bad.add(std::string("filter(prereleases=") + key + ") differs for " + r.dump());
    }
  }
  INFO(records.size() << " filter calls x 3 policies, " << bad.count() << " disagreements");
  INFO(bad.first_few());
  CHECK(bad.count() == 0);
}
