// util/bytes: what put_number/put_text write reads back, and a reader never reads past the end.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "bevenv/util/bytes.hpp"

using bevenv::util::ByteReader;
using bevenv::util::DamagedBytes;

constexpr std::uint64_t kNumbers[] = {0, 1, 127, 128, 300, UINT64_MAX};

TEST_CASE("numbers and texts read back as written", "[util]") {
  std::string out;
  for (const std::uint64_t n : kNumbers) bevenv::util::put_number(out, n);
  bevenv::util::put_text(out, "");
  bevenv::util::put_text(out, std::string("a\0b", 3));
  ByteReader in(out);
  for (const std::uint64_t n : kNumbers) CHECK(in.number() == n);
  CHECK(in.text().empty());
  CHECK(in.text() == std::string("a\0b", 3));
  CHECK(in.done());
}

TEST_CASE("LEB128 is seven bits a byte, low bits first", "[util]") {
  std::string out;
  bevenv::util::put_number(out, 300);
  CHECK(out == "\xac\x02");
}

TEST_CASE("a reader refuses what runs past the end or overflows", "[util]") {
  CHECK_THROWS_AS(ByteReader("").number(), DamagedBytes);
  CHECK_THROWS_AS(ByteReader("\x80").number(), DamagedBytes);  // a continuation with no end
  CHECK_THROWS_AS(ByteReader(std::string(11, '\xff')).number(), DamagedBytes);
  CHECK_THROWS_AS(ByteReader("\x05"
                             "abc")
                      .text(),
                  DamagedBytes);  // 5 bytes promised, 3 left
  CHECK_THROWS_AS(ByteReader("\x04"
                             "abc")
                      .count(),
                  DamagedBytes);
  CHECK_THROWS_AS(ByteReader("\x02").flag(), DamagedBytes);
  ByteReader in(
      "\x01"
      "ab");
  CHECK(in.flag());
  CHECK_THROWS_AS(in.take(3), DamagedBytes);
  CHECK(in.take(2) == "ab");
}
