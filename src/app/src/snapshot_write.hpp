#pragma once
// The text of `matrix/generated/pypi.toml`: a header that says how to refresh it, then one
// `[[package]]` per release in name and PEP 440 order, one line per key and per artifact, so a
// refresh reads as a diff. Only plain strings, one-line arrays and `artifacts` lines of inline
// tables: the loader's plain-file reader takes it without building a toml++ document.
#include <string>

#include "snapshot_closure.hpp"

namespace bevenv::app {

struct SnapshotProvenance {
  std::string index;  // the source read, `https://pypi.org/simple`
  std::string date;   // `2026-12-01`
};

std::string render_snapshot(const SnapshotResult& result, const SnapshotProvenance& provenance);

}  // namespace bevenv::app
