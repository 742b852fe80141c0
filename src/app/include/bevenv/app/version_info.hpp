#pragma once
#include <string>
#include <string_view>

namespace bevenv::app {

std::string_view bevenv_version();
// What `bevenv --version` prints.
std::string version_line();

}  // namespace bevenv::app
