#pragma once
// Runs the real bevenv-probe (or any command) and captures stdout and the exit code.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "bevenv/util/text.hpp"

namespace bevenv::probes::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
};

// Runs `command` through /bin/sh; stderr goes to the test log.
CommandResult run_command(const std::string& command);

// Runs bevenv-probe with `args` and parses its report; FAILs the test when it is not JSON.
nlohmann::json run_probe(const std::string& args, int* exit_code = nullptr);

bool file_exists(const std::string& path);
// The tests' name for bevenv's own sh quoting.
inline std::string shell_quote(std::string_view text) { return util::sh_single_quoted(text); }

}  // namespace bevenv::probes::test
