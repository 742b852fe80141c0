// PEP 440 specifiers: the rules packaging applies, each pinned by a case that breaks if the
// rule does, plus the error messages users see.
#include <catch2/catch.hpp>

#include "bevenv/core/specifier.hpp"

using bevenv::core::Operator;
using bevenv::core::Specifier;
using bevenv::core::SpecifierSet;
using bevenv::core::Version;

namespace {

Version v(const char* text) {
  auto parsed = Version::parse(text);
  INFO(text);
  REQUIRE(parsed);
  return *parsed;
}

SpecifierSet set(const char* text) {
  auto parsed = SpecifierSet::parse(text);
  INFO(text);
  REQUIRE(parsed);
  return *parsed;
}

bool in(const char* spec, const char* version) { return set(spec).contains(v(version), true); }

std::string error_of(const char* text) {
  auto parsed = SpecifierSet::parse(text);
  INFO(text);
  REQUIRE_FALSE(parsed);
  return parsed.error().to_string();
}

std::vector<std::string> filtered(const char* spec, std::vector<const char*> candidates,
                                  std::optional<bool> prereleases = std::nullopt) {
  std::vector<Version> versions;
  for (const char* c : candidates) versions.push_back(v(c));
  std::vector<std::string> out;
  for (const Version& x : set(spec).filter(versions, prereleases)) out.push_back(x.to_string());
  return out;
}

}  // namespace

TEST_CASE("specifiers parse with their operator and version", "[specifier]") {
  const auto spec = Specifier::parse("  ~= 1.4.5 ");
  REQUIRE(spec);
  CHECK(spec->op() == Operator::compatible);
  CHECK(spec->version_text() == "1.4.5");
  CHECK(spec->version()->to_string() == "1.4.5");
  CHECK(spec->to_string() == "~=1.4.5");
  const auto wildcard = Specifier::parse("==1.9.*");
  REQUIRE(wildcard);
  CHECK(wildcard->is_wildcard());
  CHECK(wildcard->version()->to_string() == "1.9");
  const auto arbitrary = Specifier::parse("===foobar");
  REQUIRE(arbitrary);
  CHECK_FALSE(arbitrary->version());
  CHECK(arbitrary->version_text() == "foobar");
}

TEST_CASE("release, post and pre-release families", "[specifier]") {
  CHECK_FALSE(in(">1.0", "1.0.post1"));  // >V excludes V's post-releases
  CHECK(in(">1.0", "1.0.1"));
  CHECK(in(">1.0.post1", "1.0.post2"));
  CHECK_FALSE(in(">1.0", "1.0+local"));
  CHECK_FALSE(in("<1.0", "1.0rc1"));  // <V excludes V's pre-releases
  CHECK(in("<1.0rc2", "1.0rc1"));
  CHECK(in("<1.0", "0.9rc1"));
  CHECK(in("==2.0", "2.0.0"));
  CHECK(in("==2.0.0", "2"));
  CHECK(in("==1!0.1", "1!0.1"));
  CHECK_FALSE(in("==0.1", "1!0.1"));
  CHECK(in(">=1.0", "1!0.1"));
}

TEST_CASE("compatible release and wildcards", "[specifier]") {
  CHECK(in("~=1.4.5", "1.4.5"));
  CHECK(in("~=1.4.5", "1.4.99"));
  CHECK_FALSE(in("~=1.4.5", "1.5"));
  CHECK_FALSE(in("~=1.4.5", "1.4.4"));
  CHECK(in("~=1.4", "1.99"));
  CHECK_FALSE(in("~=1.4", "2.0"));
  CHECK(in("~=1.18446744073709551615", "1.18446744073709551615.3"));
  CHECK(in("==1.9.*", "1.9"));
  CHECK(in("==1.9.*", "1.9.3"));
  CHECK(in("==1.9.*", "1.9a1"));
  CHECK(in("==1.9.*", "1.9.post1+cu113"));
  CHECK_FALSE(in("==1.9.*", "1.10"));
  CHECK(in("!=1.10.*", "1.9"));
  CHECK_FALSE(in("!=1.10.*", "1.10.1"));
  CHECK(in("==1.0.0.*", "1"));
}

TEST_CASE("local versions", "[specifier]") {
  CHECK(in("==1.10.1", "1.10.1+cu113"));
  CHECK(in("==1.10.1+cu113", "1.10.1+cu113"));
  CHECK_FALSE(in("==1.10.1+cu113", "1.10.1"));
  CHECK_FALSE(in("==1.10.1+cu113", "1.10.1+cpu"));
  CHECK(in("<=1.10.1", "1.10.1+cu113"));
  CHECK_FALSE(in("!=1.10.1", "1.10.1+cu113"));
  CHECK(in(">=1.10.1", "1.10.1+cu113"));
}

TEST_CASE("arbitrary equality compares the text", "[specifier]") {
  CHECK(in("===1.0", "1.0"));
  CHECK_FALSE(in("===1.0", "1.0.0"));
  CHECK(in("===1.0+CU113", "1.0+cu113"));
}

TEST_CASE("pre-release policy of contains and filter", "[specifier]") {
  // packaging 26: contains() of a lone version accepts a matching pre-release unless told not.
  CHECK(set(">=1.0").contains(v("2.0rc1")));
  CHECK_FALSE(set(">=1.0").contains(v("2.0rc1"), false));
  CHECK(set("").contains(v("2.0rc1")));
  CHECK(filtered(">=1.0", {"1.0", "2.0rc1", "1.5"}) == std::vector<std::string>{"1.0", "1.5"});
  CHECK(filtered(">=1.0", {"2.0rc1", "3.0a1"}) == std::vector<std::string>{"2.0rc1", "3.0a1"});
  CHECK(filtered(">=1.0rc1", {"1.0rc1", "1.0"}) == std::vector<std::string>{"1.0rc1", "1.0"});
  CHECK(filtered(">=1.0", {"1.0", "2.0rc1"}, true) == std::vector<std::string>{"1.0", "2.0rc1"});
  CHECK(filtered(">=1.0", {"2.0rc1"}, false).empty());
  CHECK(filtered("", {"1.0", "2.0rc1"}) == std::vector<std::string>{"1.0"});
  CHECK_FALSE(Specifier::parse("!=1.0rc1")->mentions_prerelease());
  CHECK(Specifier::parse(">=1.0.dev0")->mentions_prerelease());
}

TEST_CASE("specifier sets print sorted and without duplicates", "[specifier]") {
  CHECK(set(">=1.0.0, !=1.0.1").to_string() == "!=1.0.1,>=1.0.0");
  CHECK(set("==1.0,==1.0.0").to_string() == "==1.0");
  CHECK(set(">=1.0,,<2").to_string() == "<2,>=1.0");
  CHECK(set(" , ").empty());
  CHECK(set(">=1.0").intersect(set("<2.0")).to_string() == "<2.0,>=1.0");
}

TEST_CASE("invalid specifiers say where and why", "[specifier]") {
  CHECK(error_of(">=") == "expected a version after `>=`, found the end of the text at column 3");
  CHECK(error_of("foo, >=") ==
        "expected an operator (`==`, `!=`, `<=`, `>=`, `<`, `>`, `~=` or `===`), found `f` at "
        "column 1");
  CHECK(error_of(">=1.0, <") ==
        "expected a version after `<`, found the end of the text at column 9");
  CHECK(error_of("~=1") ==
        "`~=` needs a version with at least two release numbers, e.g. `~=1.0` at column 3");
  CHECK(error_of("~=1.0.*") ==
        "a `.*` wildcard is only allowed with `==` and `!=`, not with `~=` at column 6");
  CHECK(error_of("<1.0.*").find("at column 5") != std::string::npos);
  CHECK(error_of(">=1.0+local") ==
        "a local version label (`+...`) is only allowed with `==` and `!=`, not with `>=` at "
        "column 6");
  CHECK(error_of("==1.0a1.*").find("must follow the release numbers") != std::string::npos);
  CHECK(error_of(">=1.0 2") == "unexpected `2` after `>=1.0` at column 7");
  CHECK(error_of("1.0").find("expected an operator") != std::string::npos);
  CHECK(error_of(">=1.99999999999999999999").find("too large") != std::string::npos);
}

TEST_CASE("a copied specifier set shares its list until one side changes", "[specifier]") {
  const bevenv::core::SpecifierSet original = set(">=1.0");
  bevenv::core::SpecifierSet copy = original;
  CHECK(copy.identity() == original.identity());
  copy.add(bevenv::core::Specifier::parse("<2.0").value());
  CHECK(copy.identity() != original.identity());
  CHECK(original.to_string() == ">=1.0");
  CHECK(copy.to_string() == "<2.0,>=1.0");
  // An empty set has no list; intersecting with one returns the other side as it is.
  const bevenv::core::SpecifierSet none;
  CHECK(none.identity() == nullptr);
  CHECK(none.specifiers().empty());
  CHECK(original.intersect(none).identity() == original.identity());
  CHECK(none.intersect(original).to_string() == ">=1.0");
}
