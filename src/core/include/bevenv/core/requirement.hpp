#pragma once
// PEP 508 dependency specifications: `name[extra1,extra2] (>=1.0,<2) ; marker` and the URL form.
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/core/marker.hpp"
#include "bevenv/core/specifier.hpp"

namespace bevenv::core {

struct Requirement {
  std::string name;                 // as written
  std::vector<std::string> extras;  // normalized, sorted, unique
  SpecifierSet specifier;
  std::string url;  // the `name @ URL` form; empty otherwise
  Marker marker;

  // Errors name the column and what was expected: `torch>=` ->
  // "expected a version after `>=` at column 7".
  static Expected<Requirement, ParseError> parse(std::string_view text);

  std::string normalized_name() const;
  std::string to_string() const;  // canonical, as packaging's str(Requirement(...))
};

}  // namespace bevenv::core
