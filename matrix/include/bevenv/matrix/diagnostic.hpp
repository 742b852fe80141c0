#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bevenv::matrix {

// One problem in matrix input. Line/column are 1-based; 0 when the problem has no position
// (a missing directory).
struct Diagnostic {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::string message;
  std::string to_string() const;  // `matrix/data/torch.toml:12:3: unknown key ...`
};

// Sorted by file, then line, then column; equal positions keep their order.
void sort_diagnostics(std::vector<Diagnostic>& diagnostics);

}  // namespace bevenv::matrix
