#pragma once
// A command-line mistake in bevenv's words: which command, which word, the closest correct one.
// CLI11's own texts ("The following argument was not expected", "Run with --help") never reach
// the user.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace bevenv::cli {

struct UsageError {
  std::string message;
  std::string hint;
};

// `root` after parse() threw `error` on the command line `words` (argv without argv[0]).
UsageError describe_usage_error(CLI::App& root, const CLI::ParseError& error,
                                const std::vector<std::string>& words);

}  // namespace bevenv::cli
