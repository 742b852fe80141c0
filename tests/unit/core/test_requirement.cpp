// PEP 508 requirements: error reporting and the parts of a parsed requirement. Agreement with
// packaging is checked at scale in tests/conformance.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "bevenv/core/error.hpp"
#include "bevenv/core/requirement.hpp"
#include "parse_error.hpp"

using bevenv::core::MarkerEnvironment;
using bevenv::core::ParseError;
using bevenv::core::Requirement;

namespace {

constexpr auto parse_error = &bevenv::core::testing::parse_error_of<Requirement>;

}  // namespace

TEST_CASE("requirement errors name the column and what was expected", "[requirement]") {
  const ParseError version = parse_error("torch>=");
  CHECK(version.message == "expected a version after `>=`, found the end");
  CHECK(version.column == 7);
  CHECK_THAT(version.to_string(), Catch::EndsWith("at column 7"));

  CHECK_THAT(parse_error("torch>=abc").message, Catch::StartsWith("expected a version after `>=`"));
  CHECK(parse_error("torch>=abc").column == 8);

  const ParseError extra = parse_error("mmcv-full[");
  CHECK_THAT(extra.message, Catch::StartsWith("expected an extra name"));
  CHECK(extra.column == 10);

  CHECK_THAT(parse_error("mmcv-full[cuda,]").message,
             Catch::StartsWith("expected an extra name after `,`"));
  CHECK_THAT(parse_error("mmcv-full[cuda dev]").message,
             Catch::StartsWith("expected `,` between extra names"));
  CHECK_THAT(parse_error("torch (>=1.10").message, Catch::Contains("to close the `(` at column 7"));
  CHECK_THAT(parse_error("torch >=1.10 foo").message, Catch::StartsWith("expected `,`, `;`"));
  CHECK_THAT(parse_error("torch~=1").message, Catch::Contains("at least two parts"));
  CHECK_THAT(parse_error(">=1.0").message, Catch::StartsWith("expected a package name"));
  CHECK_THAT(parse_error("torch @ ").message, Catch::StartsWith("expected a URL"));
  CHECK_THAT(parse_error("torch==1.*.1").message, Catch::StartsWith("expected `,`, `;`"));
  CHECK_THAT(parse_error("torch>=1.0.*").message, Catch::Contains("`.*` can only follow"));
  CHECK_THAT(parse_error("torch>=1.0+cu113").message, Catch::Contains("local version label"));

  // Marker errors count columns from the start of the requirement.
  const ParseError marker = parse_error("torch>=1.10; pyhton_version < \"3.9\"");
  CHECK(marker.column == 14);
  CHECK_THAT(marker.message,
             Catch::StartsWith("expected a marker variable such as `python_version`"));
  CHECK(parse_error("torch;").column == 6);
}

TEST_CASE("a requirement's parts", "[requirement]") {
  auto parsed = Requirement::parse(
      " mmcv_Full [Test.All, cuda,test-all] ( >=1.6 , <2.0 ) ; python_version < '3.10' ");
  REQUIRE(parsed.has_value());
  const Requirement& r = parsed.value();
  CHECK(r.name == "mmcv_Full");
  CHECK(r.normalized_name() == "mmcv-full");
  CHECK(r.extras == std::vector<std::string>{"cuda", "test-all"});
  CHECK(r.specifier.specifiers().size() == 2);
  CHECK(r.url.empty());
  CHECK(r.to_string() == "mmcv_Full[cuda,test-all]<2.0,>=1.6; python_version < \"3.10\"");
  CHECK(r.marker.evaluate(MarkerEnvironment::linux_cpython("3.8.18")).value());
  CHECK_FALSE(r.marker.evaluate(MarkerEnvironment::linux_cpython("3.11.4")).value());

  auto url =
      Requirement::parse("torch @ https://download.pytorch.org/torch-1.10.whl ; os_name=='posix'");
  REQUIRE(url.has_value());
  CHECK(url->url == "https://download.pytorch.org/torch-1.10.whl");
  CHECK(url->specifier.empty());
  CHECK(url->to_string() ==
        "torch @ https://download.pytorch.org/torch-1.10.whl ; os_name == \"posix\"");

  auto bare = Requirement::parse("numpy");
  REQUIRE(bare.has_value());
  CHECK(bare->marker.empty());
  CHECK(bare->to_string() == "numpy");
}

TEST_CASE("hostile requirements are errors, not crashes", "[requirement]") {
  CHECK_FALSE(Requirement::parse(std::string(100000, '(')).has_value());
  CHECK_FALSE(Requirement::parse("a;" + std::string(100000, '(')).has_value());
  CHECK_FALSE(Requirement::parse(std::string("a\0b", 3)).has_value());
  CHECK_FALSE(Requirement::parse("\xff\xfe").has_value());
  CHECK(Requirement::parse("a[" + std::string(10000, ' ') + "]").has_value());
}
