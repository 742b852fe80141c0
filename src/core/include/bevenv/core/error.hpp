#pragma once
// Errors that reach the user: a message, a hint telling what to do, and the causes behind it.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace bevenv::core {

// Process exit codes, documented in README.md and docs/cli.md.
enum class ExitCode : int {
  ok = 0,
  problem_found = 1,  // unsatisfiable request, doctor finding, stale lock
  bad_input = 2,      // bad usage or bad input
  failure = 3,        // internal or external failure (network, builder, I/O)
};

// A parse error inside one line of text; column is 1-based.
struct ParseError {
  std::string message;  // e.g. "expected a version after `>=`"
  std::size_t column = 0;
  std::string to_string() const;  // "expected a version after `>=` at column 7"
};

// An error that stops a command. Thrown across module boundaries only from app/ down;
// the CLI prints it once and exits with its code.
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, std::string message, std::string hint = {},
        std::vector<std::string> causes = {});
  ExitCode code() const { return code_; }
  const std::string& hint() const { return hint_; }
  const std::vector<std::string>& causes() const { return causes_; }

 private:
  ExitCode code_;
  std::string hint_;
  std::vector<std::string> causes_;
};

}  // namespace bevenv::core
