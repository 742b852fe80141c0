#pragma once
// A fast path for large generated overlays: a file made only of `[[package]]` tables whose
// values are plain strings, single-line string arrays and booleans is read straight into
// records, without building a toml++ document. Anything else (other tables, escapes, numbers,
// non-ASCII text, any value the full reader would report) makes it give up, and the file is
// read by the toml++ path, which owns every diagnostic.
#include "bevenv/matrix/loader.hpp"
#include "sections.hpp"

namespace bevenv::matrix::detail {

// Adds the file's records to `out` and returns true, or returns false having added nothing.
bool read_plain_packages(const SourceFile& source, Collected& out);

}  // namespace bevenv::matrix::detail
