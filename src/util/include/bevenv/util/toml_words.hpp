#pragma once
// How error messages name a TOML value's type ("expected a table, got an array"): one table for
// every reader of TOML (the matrix and the lockfile), so the same mistake reads the same in both.
#include <toml++/toml.h>

#include <string_view>

namespace bevenv::util {

// "a table", "an array", "a string", ...; "nothing" for no value.
std::string_view toml_type_name(toml::node_type type);

}  // namespace bevenv::util
