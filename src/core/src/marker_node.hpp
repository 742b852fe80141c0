#pragma once
// The parsed form of a marker, shaped like packaging's MarkerList so that evaluation and
// printing follow the same rules: a group is a list of atoms joined by `and`/`or`, and an
// atom is either a comparison or a parenthesised group.
#include <string>
#include <vector>

#include "bevenv/core/error.hpp"
#include "bevenv/core/marker.hpp"

namespace bevenv::core {

struct MarkerOperand {
  bool is_variable = false;
  std::string text;  // variable name (normalized, e.g. `os_name`) or the string's value
};

enum class MarkerJoin : unsigned char { and_, or_ };

struct Marker::Node {
  bool is_group = true;

  // A group: `atoms[0] joins[0] atoms[1] ...`.
  std::vector<Node> atoms;
  std::vector<MarkerJoin> joins;

  // A comparison: `lhs op rhs`, `op` as packaging spells it (`not in` with one space).
  MarkerOperand lhs;
  std::string op;
  MarkerOperand rhs;
};

// Deepest parenthesis nesting accepted, as in packaging (and CPython's own parser).
inline constexpr int kMaxMarkerNesting = 200;

}  // namespace bevenv::core
