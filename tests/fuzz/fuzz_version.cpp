// Fuzzes Version::parse and the order: the input is up to three lines, one version each.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "bevenv/core/version.hpp"
#include "fuzz_check.hpp"

using bevenv::core::Version;
using bevenv::fuzz::require;

namespace {

std::optional<Version> parse_checked(std::string_view text) {
  auto parsed = Version::parse(text);
  if (!parsed) {
    // Columns are 1-based and point into the text or just past it.
    require(parsed.error().column >= 1 && parsed.error().column <= text.size() + 1,
            "error column out of range");
    require(!parsed.error().message.empty(), "empty error message");
    return std::nullopt;
  }
  const Version& v = *parsed;
  const auto again = Version::parse(v.to_string());
  require(again.has_value(), "to_string() does not parse");
  require(*again == v, "parse(to_string(v)) != v");
  require(again->to_string() == v.to_string(), "to_string() is not a fixed point");
  const auto public_part = Version::parse(v.public_string());
  require(public_part && *public_part == v.without_local(), "public_string() != without_local()");
  require(v.without_local() <= v, "a local label sorts below its public version");
  require(v.base_version().epoch() == v.epoch(), "base_version() lost the epoch");
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<Version> versions;
  std::size_t begin = 0;
  for (int line = 0; line < 3 && begin <= input.size(); ++line) {
    std::size_t end = input.find('\n', begin);
    if (end == std::string_view::npos) end = input.size();
    if (auto v = parse_checked(input.substr(begin, end - begin))) versions.push_back(*v);
    begin = end + 1;
  }
  for (const Version& a : versions) {
    require((a <=> a) == 0, "a version differs from itself");
    for (const Version& b : versions) {
      const auto ab = a <=> b;
      const auto ba = b <=> a;
      require((ab < 0) == (ba > 0) && (ab == 0) == (ba == 0), "order is not antisymmetric");
      require((a == b) == (a.to_string() == b.to_string() || ab == 0), "== disagrees with <=>");
      for (const Version& c : versions) {
        if (a < b && b < c) require(a < c, "order is not transitive");
        if (a == b && b == c) require(a == c, "equality is not transitive");
      }
    }
  }
  return 0;
}
