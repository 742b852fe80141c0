#pragma once
// The error a call must end in, for tests that check its code, text, hint or causes.
#include <optional>
#include <utility>

#include "bevenv/core/error.hpp"

namespace bevenv::testing {

// The core::Error `call()` throws, or nothing when it returns: the test REQUIREs one, then
// checks it.
template <class Call>
std::optional<core::Error> thrown_error(Call&& call) {
  try {
    std::forward<Call>(call)();
  } catch (const core::Error& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace bevenv::testing
