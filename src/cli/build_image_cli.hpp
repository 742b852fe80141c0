#pragma once
#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace bevenv::cli {

// Registers `build-image`.
void add_build_image_commands(CLI::App& root, const GlobalOptions& global, Action& action);

}  // namespace bevenv::cli
