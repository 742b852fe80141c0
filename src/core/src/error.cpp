#include "bevenv/core/error.hpp"

#include <utility>

namespace bevenv::core {

std::string ParseError::to_string() const {
  return message + " at column " + std::to_string(column);
}

Error::Error(ExitCode code, std::string message, std::string hint, std::vector<std::string> causes)
    : std::runtime_error(std::move(message)),
      code_(code),
      hint_(std::move(hint)),
      causes_(std::move(causes)) {}

}  // namespace bevenv::core
