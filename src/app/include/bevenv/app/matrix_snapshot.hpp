#pragma once
// `bevenv matrix snapshot`: reads the real index for the closure of the shipped profiles and the
// era roots of `matrix/snapshot.toml`, and writes the generated layer of the matrix
// (`matrix/generated/pypi.toml`): every release in range with its Requires-Python,
// Requires-Dist and artifacts with sha256 and size.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/matrix_source.hpp"
#include "bevenv/app/output.hpp"

namespace bevenv::app {

struct MatrixSnapshotOptions {
  MatrixOptions matrix;                                   // the curated matrix it reads
  std::filesystem::path config = "matrix/snapshot.toml";  // roots, pythons, platforms
  std::filesystem::path output_dir = "matrix/generated";  // `-o DIR`
  std::string date;                                       // `--date`; empty: today (UTC)
  std::optional<std::string> index_url;                   // default: PyPI
  std::vector<std::string> find_links;                    // searched before the index
  std::optional<std::size_t> max_versions;                // per specifier; default 40
  bool progress = true;                                   // on stderr when it is a TTY
};

// Throws core::Error: bad_input for a broken config or date (naming file, line, field),
// failure when a source cannot be read.
CommandOutput matrix_snapshot(const MatrixSnapshotOptions& options);

}  // namespace bevenv::app
