// util/utf8: the one strict UTF-8 decoder that the PEP 440/508 scanners and the lockfile writer
// share. The rejected forms are RFC 3629's; Python's decoder rejects the same ones.
#include <catch2/catch.hpp>
#include <string>

#include "bevenv/util/utf8.hpp"

using bevenv::util::append_utf8;
using bevenv::util::decode_utf8;
using bevenv::util::is_valid_utf8;

TEST_CASE("decode_utf8 reads one character and its length", "[util]") {
  const std::string text = "a\xc3\xa9\xe2\x80\x83\xf0\x9f\x98\x80";  // a, é, em space, 😀
  CHECK(decode_utf8(text, 0).code_point == 'a');
  CHECK(decode_utf8(text, 1).code_point == 0xE9);
  CHECK(decode_utf8(text, 1).length == 2);
  CHECK(decode_utf8(text, 3).code_point == 0x2003);
  CHECK(decode_utf8(text, 3).length == 3);
  CHECK(decode_utf8(text, 6).code_point == 0x1F600);
  CHECK(decode_utf8(text, 6).length == 4);
  CHECK(is_valid_utf8(text));
}

TEST_CASE("decode_utf8 takes one byte of what is not UTF-8", "[util]") {
  for (const std::string bad : {
           "\x80",              // a continuation byte alone
           "\xc3",              // truncated
           "\xe2\x80",          // truncated
           "\xc3\x28",          // a lead without its continuation
           "\xc0\xaf",          // overlong `/`
           "\xe0\x80\xaf",      // overlong `/`
           "\xf0\x80\x80\xaf",  // overlong `/`
           "\xed\xa0\x80",      // a surrogate (U+D800)
           "\xf4\x90\x80\x80",  // above U+10FFFF
           "\xf8\x88\x80\x80\x80",
           "\xff",
       }) {
    INFO(bad.size());
    const auto c = decode_utf8(bad, 0);
    CHECK_FALSE(c.valid);
    CHECK(c.length == 1);
    CHECK(c.code_point == 0xFFFD);
    CHECK_FALSE(is_valid_utf8(bad));
    CHECK_FALSE(is_valid_utf8("ok " + bad + " ok"));
  }
  CHECK(is_valid_utf8(""));
}

TEST_CASE("append_utf8 and decode_utf8 agree on every scalar value", "[util]") {
  std::size_t checked = 0;
  for (std::uint32_t code_point = 0; code_point <= 0x10FFFF; ++code_point) {
    if (code_point >= 0xD800 && code_point <= 0xDFFF) continue;
    std::string text;
    append_utf8(text, code_point);
    const auto c = decode_utf8(text, 0);
    if (!c.valid || c.code_point != code_point || c.length != text.size()) FAIL(code_point);
    ++checked;
  }
  CHECK(checked == 0x10FFFF + 1 - 0x800);
}
