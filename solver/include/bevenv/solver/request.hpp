#pragma once
// What the caller wants from the solver: root requirements, imposed conflicts and preferences.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bevenv/solver/database.hpp"

namespace bevenv::solver {

// A known-bad combination: `subject` versions cannot be installed together with `other`
// versions. Without `other`, the `subject` versions are forbidden outright. Between two system
// records it does not bind: both are already there (the app can report that case itself).
struct ImposedConflict {
  Dependency subject;
  std::optional<Dependency> other;
  std::string origin;  // e.g. "rule `mmcv-wheels`, openmmlab index"
};

// Versions of one package to try first (known-good) or last (known-bad but not forbidden).
struct Preference {
  std::string name;
  core::SpecifierSet versions;
};

struct Request {
  // Root requirements; `origin` names who wants it ("the request", "profile uniad").
  std::vector<Dependency> requirements;
  std::vector<ImposedConflict> conflicts;
  std::vector<Preference> preferred;
  std::vector<Preference> disfavored;
  // pip's policy by default: final releases are preferred, and a pre-release can be chosen
  // only when a requirement on its name names a pre-release (`>=1.0.0rc1`) or has no final
  // release that matches; it then satisfies every requirement on that name it matches (pip
  // merges the specifiers on a name). These switch pre-releases on, globally or per name.
  bool allow_prereleases = false;
  std::set<std::string> allow_prereleases_for;
  // Versions of one name whose records are alike (requirements, conflicts, flags) and that no
  // specifier on that name here tells apart are one choice: only the newest of them enters
  // libsolv's pool. For records whose requirements are complete (an offline lock); a record
  // whose requirements are still to be read is not like the ones already read.
  bool merge_alike_versions = false;
  // Preferences that may be added later (Session::prefer): their versions are kept apart too.
  std::vector<Preference> later_preferences;
};

}  // namespace bevenv::solver
