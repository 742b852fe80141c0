// util/text: the helpers every module shares, on the edge cases their callers meet.
#include <catch2/catch.hpp>

#include "bevenv/util/text.hpp"

using bevenv::util::ascii_lower;
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
