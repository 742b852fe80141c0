#pragma once
// Loading the matrix: the embedded data, overlays on top (each directory a layer that adds or
// replaces records by identity), then validation of the whole. All problems are reported.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/matrix/diagnostic.hpp"
#include "bevenv/matrix/model.hpp"

namespace bevenv::matrix {

// One TOML document. Files of one layer may not define the same record twice; a later layer
// replaces records of earlier ones.
struct SourceFile {
  std::string path;  // as shown in diagnostics
  std::string text;
  std::size_t layer_index = 0;  // 0 = embedded
  Layer layer = Layer::embedded;
};

struct LoadOptions {
  bool include_embedded = true;
  // Directories in increasing precedence; each `*.toml` in one (not recursive, by name order).
  std::vector<std::filesystem::path> overlays;
  // false: a record may require a package the matrix lacks (what `bevenv matrix snapshot` reads
  // so that the generated layer gains it); every other command needs the closed matrix.
  bool known_packages_only = true;
  // Leaves the generated layer's releases (a snapshot of what PyPI serves) out, and the packages
  // only they described: for a lock whose sources decide what exists. Curated records stay, with
  // what the snapshot filled in. The embedded image skips them unread.
  bool without_generated_releases = false;
  // Leaves out the releases a newer release stands for (stand_ins.hpp), keeping only their
  // versions (Package::stood_for): for an offline lock, which checks that it needs none of them.
  // No effect with `without_generated_releases`. The embedded image skips them unread.
  bool without_stood_for = false;
};

using LoadResult = core::Expected<Matrix, std::vector<Diagnostic>>;

// The files compiled into the binary (`matrix/data/*.toml`), in name order.
const std::vector<SourceFile>& embedded_files();
// SHA-256 (hex) over every embedded file's path, size and text, computed at build time.
std::string_view embedded_digest();

LoadResult load_embedded();
LoadResult load(const LoadOptions& options);
LoadResult load_sources(const std::vector<SourceFile>& files, bool known_only = true);

}  // namespace bevenv::matrix
