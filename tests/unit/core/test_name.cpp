// PEP 503 normalization and PEP 508 validity of project names.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

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

TEST_CASE("a name is normalized exactly when normalizing keeps it", "[name]") {
  // Every string of up to four characters from an alphabet that covers each rule.
  const std::string alphabet = "aZ9-_.";
  std::vector<std::string> names{""};
  for (std::size_t length = 0; length < 4; ++length) {
    const std::size_t shorter = names.size();
    for (std::size_t i = 0; i < shorter; ++i) {
      if (names[i].size() != length) continue;
      for (const char c : alphabet) names.push_back(names[i] + c);
    }
  }
  for (const auto& name : names) {
    INFO("`" << name << "`");
    CHECK(bevenv::core::is_normalized_name(name) == (normalize_name(name) == name));
  }
}
