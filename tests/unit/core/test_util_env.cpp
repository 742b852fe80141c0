// util::env: unset and empty are the same answer, for every variable bevenv reads.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "bevenv/util/env.hpp"

TEST_CASE("util::env reads a value and treats empty as unset", "[util]") {
  ::setenv("BEVENV_TEST_ENV", "value", 1);
  CHECK(bevenv::util::env("BEVENV_TEST_ENV") == std::optional<std::string>("value"));
  ::setenv("BEVENV_TEST_ENV", "", 1);
  CHECK_FALSE(bevenv::util::env("BEVENV_TEST_ENV").has_value());
  ::unsetenv("BEVENV_TEST_ENV");
  CHECK_FALSE(bevenv::util::env("BEVENV_TEST_ENV").has_value());
}
