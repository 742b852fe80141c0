// PEP 503 normalization and PEP 508 validity of project names.
#include <catch2/catch.hpp>

#include "bevenv/core/name.hpp"

using bevenv::core::is_valid_name;
using bevenv::core::normalize_name;

TEST_CASE("names normalize as PEP 503 says", "[name]") {
  CHECK(normalize_name("Mmcv_Full") == "mmcv-full");
  CHECK(normalize_name("mmcv-full") == "mmcv-full");
  CHECK(normalize_name("oslo.concurrency") == "oslo-concurrency");
  CHECK(normalize_name("A-_.B") == "a-b");
  CHECK(normalize_name("torch") == "torch");
}

TEST_CASE("names are validated as PEP 508 says", "[name]") {
  CHECK(is_valid_name("mmdet3d"));
  CHECK(is_valid_name("a"));
  CHECK(is_valid_name("Mmcv_Full.x-1"));
  CHECK_FALSE(is_valid_name(""));
  CHECK_FALSE(is_valid_name("-a"));
  CHECK_FALSE(is_valid_name("a_"));
  CHECK_FALSE(is_valid_name("a b"));
  CHECK_FALSE(is_valid_name("a+b"));
}
