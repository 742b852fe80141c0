#pragma once
// Other shapes of a lockfile: pip requirements files and JSON.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bevenv/lockfiles/model.hpp"

namespace bevenv::lockfiles {

struct RequirementsOptions {
  std::string lockfile_name = "bevenv.lock";  // named in the header comment
  // Write `--hash` lines, and move the packages without a known hash to a second file.
  bool hashes = true;
  // The two files' names, as the header's install commands name them.
  std::string file_name = "requirements.txt";
  std::string unhashed_file_name = "requirements.unhashed.txt";
};

struct RequirementsExport {
  // The hash-checked set: every pin carries a `--hash` line per locked artifact, so pip installs
  // it with `--require-hashes`. With `hashes` off: every package, without hashes.
  std::string text;
  bool hashes_written = false;  // `text` carries `--hash` lines (false when it has no pins)
  std::size_t pins = 0;         // requirement lines in `text`
  // Packages with no sha256 for some artifact (pages that publish none: download.pytorch.org's
  // torch+cuXXX, OpenMMLab's mmcv-full), in lockfile order. With `hashes` on they are left out
  // of `text` and pinned in `unhashed_text`, which pip installs first, without hash checking.
  std::vector<std::string> packages_without_hashes;
  std::string unhashed_text;  // empty when every package is hash-checked or `hashes` is off
};

// Every artifact of the package has a sha256 (and it has at least one): pip can check it.
bool hash_checkable(const Package& p);
// The artifact an unhashed pin names by URL: the package's only artifact, when it has one;
// null when the pin is `name==version` and pip finds the file on the package's page.
const Artifact* pinned_artifact(const Package& p);
// `requirements.unhashed.txt` beside `requirements.txt` or `requirements.lock.txt`;
// `X.unhashed.txt` beside any other `X.txt` or `X`.
std::string unhashed_file_name_for(const std::string& file_name);

// The pip requirements files: `name==version` pins (with markers), `--hash` lines, `# via`
// comments from the dependency edges, and the `--extra-index-url` / `--find-links` options for
// the sources each file's packages come from. Compiled-ops builds are listed as comments.
RequirementsExport export_requirements(const Lockfile& lock,
                                       const RequirementsOptions& options = {});

// The lockfile as JSON with a fixed key order; optional fields are null, never missing, so
// scripts see one shape.
nlohmann::ordered_json to_json(const Lockfile& lock);
// to_json(lock) indented by two spaces, with a final newline.
std::string export_json(const Lockfile& lock);

}  // namespace bevenv::lockfiles
