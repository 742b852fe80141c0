#include "bevenv/util/env.hpp"

#include <cstdlib>

namespace bevenv::util {

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || value[0] == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace bevenv::util
