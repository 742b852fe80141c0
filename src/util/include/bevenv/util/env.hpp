#pragma once
// The one environment lookup: every variable bevenv reads treats an empty value as unset
// (`NO_COLOR=`, `XDG_CACHE_HOME=`), so the lookup does it once, here.
#include <optional>
#include <string>

namespace bevenv::util {

// The value of `name`; nullopt when it is unset or empty.
std::optional<std::string> env(const char* name);

}  // namespace bevenv::util
