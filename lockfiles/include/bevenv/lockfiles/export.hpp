#pragma once
// Other shapes of a lockfile: pip requirements files, JSON and PEP 751 `pylock.toml`.
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

struct PylockOptions {
  std::string lockfile_name = "bevenv.lock";  // named in the header comment
  // PEP 751 requires a hash for every file. With this on, a package whose files have no
  // recorded sha256 is written with an empty `hashes` table (readers such as uv accept it with
  // a warning); off, it is left out and recorded under `[tool.bevenv]`.
  bool allow_unhashed = false;
};

// What `pylock.toml` cannot say, one entry per package or build, in lockfile order.
struct PylockOmission {
  std::string name;     // package or build name
  std::string version;  // empty for builds of the project
  std::string reason;   // `no sha256 recorded`, `build step with commands`, ...
};

struct PylockExport {
  std::string text;
  std::size_t packages = 0;                  // `[[packages]]` entries written
  std::vector<PylockOmission> left_out;      // not installable from the file
  std::vector<std::string> unhashed;         // written with an empty `hashes` table
  std::vector<std::string> build_isolation;  // sdist/VCS builds the lock runs without isolation
};

// The lockfile as a PEP 751 lock (lock-version 1.0) for its one target: `environments` and
// `requires-python` from the target, one `[[packages]]` entry per installed package with its
// index, wheels or sdist and sha256, VCS pins as `vcs`. Build steps with commands have no
// pylock form: they, and what only they install, are listed in `left_out` and `[tool.bevenv]`.
PylockExport export_pylock(const Lockfile& lock, const PylockOptions& options = {});

}  // namespace bevenv::lockfiles
