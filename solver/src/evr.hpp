#pragma once
// PEP 440 order expressed as libsolv EVR strings.
//
// Debian's libsolv 0.7.23 has no PEP 440 (or conda) comparison, so each version is encoded as
// a string that its dpkg-style comparison (DISTTYPE_DEB: `~` sorts before the end, the end
// before letters, letters before other characters, digit runs numerically) orders exactly as
// PEP 440 does:
//
//   epoch ":" release            trailing zeros dropped (`1.0.0` -> `1`, `0.0` -> `0`)
//   dev-only release             "~a" N   (1.0.dev3: below every pre-release of 1.0)
//   pre-release a / b / rc       "~b" N / "~c" N / "~d" N
//   post-release                 "p" N    (after the end of 1.0, before `.1` of 1.0.1)
//   dev of a pre/post-release    "~x" N   (below the same version without .devN)
//   local version                "l" then per segment: number "b" N "~", text "a" T "~" with
//                                T's digits mapped 0-9 -> A-J (numbers above text, shorter
//                                first)
//
// tests/unit/solver/evr_order_test.cpp checks the scheme against Python's `packaging`.
#include <string>

#include "bevenv/core/version.hpp"

namespace bevenv::solver::detail {

std::string to_evr(const core::Version& version);

}  // namespace bevenv::solver::detail
