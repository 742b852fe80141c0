// util/text: the helpers every module shares, on the edge cases their callers meet.
#include <catch2/catch.hpp>

#include "bevenv/util/text.hpp"

using bevenv::util::ascii_lower;
using bevenv::util::iequals_ascii;
using bevenv::util::join;
using bevenv::util::trim;

TEST_CASE("join puts the separator between each pair, empty items included", "[util]") {
  CHECK(join({}, ", ").empty());
  CHECK(join({"a"}, ", ") == "a");
  CHECK(join({"a", "b", "c"}, "/") == "a/b/c");
  CHECK(join({"", "b"}, ",") == ",b");
}

TEST_CASE("trim drops the given blanks at both ends only", "[util]") {
  CHECK(trim("  a b \t\r\n") == "a b");
  CHECK(trim(" \t ").empty());
  CHECK(trim("").empty());
  CHECK(trim("xxaxx", "x") == "a");
}

TEST_CASE("ascii_lower lowers A-Z and leaves other bytes", "[util]") {
  CHECK(ascii_lower("Torch-CUDA_12") == "torch-cuda_12");
  CHECK(ascii_lower("\xc3\x84") == "\xc3\x84");  // not ASCII: unchanged
}

TEST_CASE("iequals_ascii compares with A-Z lowered on the left only", "[util]") {
  CHECK(iequals_ascii("Requires-Dist", "requires-dist"));
  CHECK(iequals_ascii("", ""));
  CHECK_FALSE(iequals_ascii("Requires-Dis", "requires-dist"));
  CHECK_FALSE(iequals_ascii("requires-dist", "Requires-Dist"));  // the right side is lower case
  CHECK_FALSE(iequals_ascii("\xc3\x84", "\xc3\xa4"));            // not ASCII: no lowering
}
