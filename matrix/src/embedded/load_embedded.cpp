// The loader's entry points that read the matrix compiled into the binary: its image when
// nothing is laid over it, the data files themselves otherwise.
#include <iterator>

#include "bevenv/matrix/loader.hpp"
#include "image.hpp"
#include "load_files.hpp"
#include "stand_ins.hpp"

namespace bevenv::matrix {
namespace {

// Overlays replace embedded records by identity and are checked together with them, and
// `matrix snapshot` reads the matrix open; both read the files. Everything else starts from
// the image, which the build made from the same files and checked.
std::optional<Matrix> compiled_matrix(detail::LeftOut left_out = detail::LeftOut::nothing) {
  return detail::read_image(detail::embedded_image(), embedded_digest(), left_out);
}

detail::LeftOut left_out_by(const LoadOptions& options) {
  if (options.without_generated_releases) return detail::LeftOut::generated;
  return options.without_stood_for ? detail::LeftOut::stood_for : detail::LeftOut::nothing;
}

void drop_generated_releases(Matrix& matrix) {
  for (auto it = matrix.packages.begin(); it != matrix.packages.end();) {
    auto& versions = it->second.versions;
    std::erase_if(versions, [](const PackageVersion& v) { return v.generated.has_value(); });
    it = versions.empty() ? matrix.packages.erase(it) : std::next(it);
  }
  detail::forget_stand_ins(matrix);  // a curated release's stand-in may have been generated
}

}  // namespace

LoadResult load_embedded() {
  if (auto matrix = compiled_matrix()) return std::move(*matrix);
  return load_sources(embedded_files());
}

LoadResult load(const LoadOptions& options) {
  if (options.include_embedded && options.overlays.empty() && options.known_packages_only) {
    if (auto matrix = compiled_matrix(left_out_by(options))) return std::move(*matrix);
  }
  std::vector<const SourceFile*> files;
  if (options.include_embedded) files = detail::pointers(embedded_files());
  std::vector<SourceFile> overlays;
  std::vector<Diagnostic> diagnostics;
  for (std::size_t i = 0; i < options.overlays.size(); ++i) {
    detail::read_overlay_dir(options.overlays[i], i + 1, overlays, diagnostics);
  }
  for (const SourceFile& file : overlays) files.push_back(&file);
  auto result = detail::load_files(files, options.known_packages_only);
  if (result && options.without_generated_releases) drop_generated_releases(*result);
  if (result && left_out_by(options) == detail::LeftOut::stood_for)
    detail::leave_out_stood_for(*result);
  if (diagnostics.empty()) return result;
  if (!result) diagnostics.insert(diagnostics.end(), result.error().begin(), result.error().end());
  sort_diagnostics(diagnostics);
  return core::unexpected(std::move(diagnostics));
}

}  // namespace bevenv::matrix
