#pragma once
// Other shapes of a lockfile: a pip requirements file and JSON.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bevenv/lockfiles/model.hpp"

namespace bevenv::lockfiles {

struct RequirementsOptions {
  std::string lockfile_name = "bevenv.lock";  // named in the header comment
  bool hashes = true;  // write `--hash` lines when every package has at least one
};

struct RequirementsExport {
  std::string text;
  // Whether `--hash` lines were written. pip turns on hash checking for the whole file as soon
  // as one line has a hash, so hashes are written for all packages or for none.
  bool hashes_written = false;
  // Packages with no recorded sha256 (the reason hashes were left out), in lockfile order.
  std::vector<std::string> packages_without_hashes;
};

// A pip-installable requirements file: `name==version` pins (with markers), `--hash` lines,
// `# via` comments from the dependency edges, and the `--extra-index-url` / `--find-links`
// options for the sources the lockfile uses. Compiled-ops builds are listed as comments.
RequirementsExport export_requirements(const Lockfile& lock,
                                       const RequirementsOptions& options = {});

// The lockfile as JSON with a fixed key order; optional fields are null, never missing, so
// scripts see one shape.
nlohmann::ordered_json to_json(const Lockfile& lock);
// to_json(lock) indented by two spaces, with a final newline.
std::string export_json(const Lockfile& lock);

}  // namespace bevenv::lockfiles
