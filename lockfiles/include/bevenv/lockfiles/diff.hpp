#pragma once
// What changed between two lockfiles, in words: the body of `bevenv lock --check`.
#include <string>
#include <vector>

#include "bevenv/lockfiles/model.hpp"

namespace bevenv::lockfiles {

enum class ChangeKind { added, removed, changed };

struct Change {
  ChangeKind kind = ChangeKind::changed;
  // "torch 1.10.1+cu113 -> 1.10.2+cu113", "+ numpy 1.19.5", "- yapf 0.40.1",
  // "target python 3.8.18 -> 3.9.18", "input hash changed"
  std::string text;
  bool operator==(const Change&) const = default;
};

// Empty exactly when the two models are equal after canonicalize(), i.e. when their lockfile
// texts are byte-identical. Order: header, target, environment, packages (by name), builds,
// rules.
std::vector<Change> diff_lockfiles(const Lockfile& before, const Lockfile& after);

}  // namespace bevenv::lockfiles
