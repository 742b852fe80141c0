// The byte-level depth guard that runs before toml++: deep headers, dotted keys, arrays and
// inline tables are found with their position; ordinary TOML passes.
#include <catch2/catch.hpp>
#include <string>

#include "bevenv/core/toml_nesting.hpp"

using bevenv::core::check_toml_nesting;

namespace {

std::string repeated(const std::string& part, std::size_t count, const std::string& glue = "") {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += (i == 0 ? "" : glue) + part;
  return out;
}

}  // namespace

TEST_CASE("ordinary TOML passes the nesting guard") {
  CHECK_FALSE(check_toml_nesting(R"(# comment [[[[
[package]
name = "torch"   # a [ in a comment
versions = [["1.10.2", { cuda = "11.3" }], ['1.9.0']]
"dotted.in.quotes" = 'a.b.c'
text = """ multi
line [[[ { still a string """
url = "https://x.org/a.b.c?[x]"
[[rule]]
when.python.version = ">=3.8"
inline = { a.b = 1, c = [1.5, 2.5] }
)"));
}

TEST_CASE("a dotted header of many parts is refused at its position") {
  const std::string text = "a = 1\n[" + repeated("a", 31000, ".") + "]\n";
  const auto error = check_toml_nesting(text);
  REQUIRE(error);
  CHECK(error->line == 2);
  CHECK(error->column == 1 + 2 * 64);  // the 64th dot, which starts part 65
  CHECK_THAT(error->message, Catch::Contains("at most 64"));
  CHECK_FALSE(check_toml_nesting("[" + repeated("a", 64, ".") + "]\n"));
}

TEST_CASE("deep arrays, inline tables and dotted keys are refused") {
  CHECK(check_toml_nesting("x = " + repeated("[", 100000)));
  CHECK(check_toml_nesting("x = " + repeated("{a=", 100000)));
  CHECK(check_toml_nesting(repeated("a", 65, ".") + " = 1\n"));
  CHECK_FALSE(check_toml_nesting(repeated("a", 64, ".") + " = 1\n"));
  // Header, key and brackets add up.
  CHECK(check_toml_nesting("[" + repeated("t", 40, ".") + "]\n" + repeated("k", 20, ".") + " = " +
                           repeated("[", 5) + repeated("]", 5) + "\n"));
  CHECK_FALSE(check_toml_nesting("[" + repeated("t", 40, ".") + "]\n" + repeated("k", 20, ".") +
                                 " = " + repeated("[", 4) + repeated("]", 4) + "\n"));
}

TEST_CASE("brackets inside strings and comments do not count") {
  CHECK_FALSE(check_toml_nesting("x = \"" + repeated("[", 1000) + "\"\n"));
  CHECK_FALSE(check_toml_nesting("x = '''" + repeated("{", 1000) + "'''\n"));
  CHECK_FALSE(check_toml_nesting("# " + repeated("[", 1000) + "\n"));
  CHECK_FALSE(check_toml_nesting("x = \"\\\"" + repeated("[", 1000) + "\"\n"));
  // Siblings do not add up.
  CHECK_FALSE(check_toml_nesting("x = [" + repeated("[1]", 1000, ",") + "]\n"));
}
