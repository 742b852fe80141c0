// PEP 508 markers: error reporting, the Linux CPython environment, value semantics and
// hostile input. Agreement with packaging is checked at scale in tests/conformance.
#include <catch2/catch.hpp>
#include <string>

#include "bevenv/core/error.hpp"
#include "bevenv/core/marker.hpp"
#include "parse_error.hpp"

using bevenv::core::Marker;
using bevenv::core::MarkerEnvironment;
using bevenv::core::ParseError;

namespace {

constexpr auto parse_error = &bevenv::core::testing::parse_error_of<Marker>;

bool holds(const std::string& text, const MarkerEnvironment& env) {
  auto marker = Marker::parse(text);
  REQUIRE(marker.has_value());
  auto result = marker->evaluate(env);
  REQUIRE(result.has_value());
  return result.value();
}

}  // namespace

TEST_CASE("marker errors name the column and what was expected", "[marker]") {
  const ParseError variable = parse_error("pyhton_version < \"3.9\"");
  CHECK(variable.column == 1);
  CHECK_THAT(variable.message,
             Catch::Contains("expected a marker variable such as `python_version`") &&
                 Catch::Contains("`pyhton_version`"));

  const ParseError op = parse_error("python_version ~ \"3.9\"");
  CHECK(op.column == 16);
  CHECK_THAT(op.message, Catch::StartsWith("expected a marker operator"));

  const ParseError unclosed = parse_error("(os_name == \"nt\" or extra == \"cuda\"");
  CHECK_THAT(unclosed.message, Catch::Contains("to close the `(` at column 1"));

  const ParseError trailing = parse_error("os_name == \"nt\" xor");
  CHECK(trailing.column == 17);
  CHECK_THAT(trailing.message, Catch::StartsWith("expected `and`, `or` or the end"));

  const ParseError not_in = parse_error("os_name not on \"posix\"");
  CHECK(not_in.column == 13);
  CHECK_THAT(not_in.message, Catch::Contains("`in` after `not`"));

  const ParseError unterminated = parse_error("os_name == \"posix");
  CHECK(unterminated.column == 12);

  CHECK_THAT(parse_error("").to_string(), Catch::EndsWith("at column 1"));
  // At the end of the text the column is that of the last character.
  CHECK(parse_error("os_name ==").column == 10);
}

TEST_CASE("deep nesting is an error, not a crash", "[marker]") {
  const std::string at_limit = std::string(200, '(') + "os_name == \"nt\"" + std::string(200, ')');
  CHECK(Marker::parse(at_limit).has_value());

  const std::string over_limit =
      std::string(201, '(') + "os_name == \"nt\"" + std::string(201, ')');
  const ParseError error = parse_error(over_limit);
  CHECK(error.column == 201);
  CHECK_THAT(error.message, Catch::Contains("nested more than 200"));

  CHECK_FALSE(Marker::parse(std::string(100000, '(')).has_value());
  CHECK_FALSE(Marker::parse(std::string(100000, ')')).has_value());
}

TEST_CASE("the Linux CPython environment fills every marker variable", "[marker]") {
  const MarkerEnvironment env = MarkerEnvironment::linux_cpython("3.8.18", "aarch64");
  for (const char* variable :
       {"os_name", "sys_platform", "platform_machine", "platform_python_implementation",
        "platform_release", "platform_system", "platform_version", "python_version",
        "python_full_version", "implementation_name", "implementation_version", "extra"}) {
    INFO(variable);
    CHECK(env.values.count(variable) == 1);
  }
  CHECK(env.values.at("python_version") == "3.8");
  CHECK(env.values.at("platform_machine") == "aarch64");
  CHECK(holds("sys_platform == \"linux\" and platform_system == \"Linux\"", env));
  CHECK(holds("python_version < \"3.10\" and python_full_version >= \"3.8.10\"", env));
  CHECK(holds("\"3.7\" < python_version", env));
  CHECK_FALSE(holds("os_name == \"nt\" or implementation_name != \"cpython\"", env));
  CHECK(holds("platform_machine in \"x86_64 aarch64\"", env));
  CHECK(MarkerEnvironment::linux_cpython("3.13.0rc1").values.at("python_version") == "3.13");
}

TEST_CASE("extra is compared in its normalized form", "[marker]") {
  MarkerEnvironment env = MarkerEnvironment::linux_cpython("3.10.12");
  env.values["extra"] = "Test.All";
  CHECK(holds("extra == \"test_all\"", env));
  auto marker = Marker::parse("extra == 'Test_All'");
  REQUIRE(marker.has_value());
  CHECK(marker->to_string() == "extra == \"test-all\"");
  env.values.erase("extra");
  CHECK(holds("extra == \"\"", env));
}

TEST_CASE("evaluation errors are values", "[marker]") {
  MarkerEnvironment env;
  env.values["os_name"] = "posix";
  auto missing = Marker::parse("os_name == \"posix\" or python_version < \"3\"");
  REQUIRE(missing.has_value());
  auto result = missing->evaluate(env);
  REQUIRE_FALSE(result.has_value());
  CHECK_THAT(result.error(), Catch::Contains("`python_version`"));

  auto undefined = Marker::parse("os_name ~= \"posix\"");
  REQUIRE(undefined.has_value());
  CHECK_FALSE(undefined->evaluate(env).has_value());
}

TEST_CASE("markers copy, move and print canonically", "[marker]") {
  const Marker empty;
  CHECK(empty.empty());
  CHECK(empty.to_string().empty());
  CHECK(empty.evaluate(MarkerEnvironment{}).value());

  auto parsed = Marker::parse("(python_version<'3.9' and (os_name=='nt')) or extra=='Cuda'");
  REQUIRE(parsed.has_value());
  const std::string canonical =
      "(python_version < \"3.9\" and os_name == \"nt\") or extra == \"cuda\"";
  CHECK(parsed->to_string() == canonical);
  Marker copy = parsed.value();
  Marker moved = std::move(parsed.value());
  CHECK(copy.to_string() == canonical);
  CHECK(moved.to_string() == canonical);
  copy = empty;
  CHECK(copy.empty());
}
