// Fuzzes SpecifierSet::parse and membership: the first line is a specifier set, the next
// lines are candidate versions.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "bevenv/core/specifier.hpp"
#include "fuzz_check.hpp"

using bevenv::core::Operator;
using bevenv::core::Specifier;
using bevenv::core::SpecifierSet;
using bevenv::core::Version;
using bevenv::fuzz::require;

namespace {

void check_round_trip(const SpecifierSet& set) {
  const auto again = SpecifierSet::parse(set.to_string());
  require(again.has_value(), "to_string() of a set does not parse");
  require(again->to_string() == set.to_string(), "set to_string() is not a fixed point");
  for (const Specifier& spec : set.specifiers()) {
    const auto single = Specifier::parse(spec.to_string());
    require(single.has_value(), "to_string() of a specifier does not parse");
    require(single->to_string() == spec.to_string(), "specifier to_string() changed");
    require(single->op() == spec.op() && single->is_wildcard() == spec.is_wildcard(),
            "specifier round trip changed its meaning");
  }
}

void check_membership(const SpecifierSet& set, const Version& v) {
  const bool unset = set.contains(v);
  const bool with_pre = set.contains(v, true);
  const bool without_pre = set.contains(v, false);
  require(unset == with_pre, "contains() differs between unset and True");
  require(!without_pre || with_pre, "contains(False) accepts what contains(True) rejects");
  require(without_pre == (with_pre && !v.is_prerelease()), "contains(False) policy");
  for (const Specifier& spec : set.specifiers()) {
    // `!=` is exactly the complement of `==` with the same version.
    if (spec.op() != Operator::equal && spec.op() != Operator::not_equal) continue;
    std::string flipped = spec.to_string();
    flipped[0] = spec.op() == Operator::equal ? '!' : '=';
    const auto other = Specifier::parse(flipped);
    require(other.has_value(), "flipped specifier does not parse");
    require(other->matches(v) != spec.matches(v), "== and != are not complements");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::size_t line_end = input.find('\n');
  if (line_end == std::string_view::npos) line_end = input.size();
  const std::string_view set_text = input.substr(0, line_end);
  const auto set = SpecifierSet::parse(set_text);
  if (!set) {
    require(set.error().column >= 1 && set.error().column <= set_text.size() + 1,
            "error column out of range");
    return 0;
  }
  check_round_trip(*set);

  std::vector<Version> candidates;
  std::size_t begin = line_end + 1;
  while (begin < input.size() && candidates.size() < 16) {
    std::size_t end = input.find('\n', begin);
    if (end == std::string_view::npos) end = input.size();
    if (auto v = Version::parse(input.substr(begin, end - begin))) candidates.push_back(*v);
    begin = end + 1;
  }
  for (const Version& v : candidates) check_membership(*set, v);

  const auto all = set->filter(candidates, true);
  const auto finals = set->filter(candidates, false);
  const auto by_default = set->filter(candidates);
  require(all.size() == static_cast<std::size_t>(std::count_if(
                            candidates.begin(), candidates.end(),
                            [&](const Version& v) { return set->contains(v, true); })),
          "filter(True) differs from contains(True)");
  require(std::all_of(finals.begin(), finals.end(),
                      [](const Version& v) { return !v.is_prerelease(); }),
          "filter(False) kept a pre-release");
  require(by_default.size() <= all.size(), "filter() kept more than filter(True)");
  return 0;
}
