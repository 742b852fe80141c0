#pragma once
// `matrix/snapshot.toml`: what `bevenv matrix snapshot` reads beyond the profiles. Curated, but
// not part of the matrix: the loader never reads it.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/core/requirement.hpp"

namespace bevenv::app {

struct SnapshotConfig {
  std::vector<core::Requirement> roots;  // era roots: the releases the profiles may move to
  std::vector<std::string> pythons;      // `3.8`
  std::vector<std::string> platforms;    // `linux_x86_64`, `linux_aarch64`
  std::string glibc = "2.31";            // the newest manylinux glibc a kept wheel may need
  std::optional<std::vector<std::string>> profiles;  // unset: every shipped profile
  std::size_t max_versions = 10;  // newest releases kept per specifier that is no root
};

// Throws core::Error(bad_input) naming `path:line:column` and the field.
SnapshotConfig read_snapshot_config(const std::filesystem::path& path);

}  // namespace bevenv::app
