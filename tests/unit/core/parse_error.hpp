#pragma once
// What the core parsers' tests share: the error a parser must give for a text.
#include <catch2/catch.hpp>
#include <string>

#include "bevenv/core/error.hpp"

namespace bevenv::core::testing {

// The error `Parsed::parse(text)` gives; the test stops there when the text parses.
template <class Parsed>
ParseError parse_error_of(const std::string& text) {
  auto parsed = Parsed::parse(text);
  REQUIRE_FALSE(parsed.has_value());
  return parsed.error();
}

}  // namespace bevenv::core::testing
