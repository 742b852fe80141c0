#pragma once
// A failed invariant in a fuzz target: say which and crash so that libFuzzer keeps the input.
#include <cstdio>
#include <cstdlib>

namespace bevenv::fuzz {

inline void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

}  // namespace bevenv::fuzz
