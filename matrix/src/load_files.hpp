#pragma once
// What the loader's entry points share: reading files and overlay directories into a checked
// matrix. The embedded entry points (embedded/load_embedded.cpp) sit apart, so that the build's
// image compiler links the loader without an image of its own.
#include <filesystem>
#include <vector>

#include "bevenv/matrix/loader.hpp"

namespace bevenv::matrix::detail {

// The `*.toml` files of one overlay directory, by name; problems go to `diagnostics`.
void read_overlay_dir(const std::filesystem::path& dir, std::size_t layer_index,
                      std::vector<SourceFile>& files, std::vector<Diagnostic>& diagnostics);

// The matrix `files` make, read one after the other (large files on threads of their own).
LoadResult load_files(const std::vector<const SourceFile*>& files, bool known_only);

std::vector<const SourceFile*> pointers(const std::vector<SourceFile>& files);

}  // namespace bevenv::matrix::detail
