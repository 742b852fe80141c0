#pragma once
// Version ladders: "at most one version of a name" for names with many versions, as a chain
// of auxiliary solvables (about 3 rules per version) instead of libsolv's rule per pair of
// versions (see add()). Explanations ask it which rules are a ladder's, to tell them as the
// pairwise conflicts they stand for.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "provider_index.hpp"
#include "solv/ids.hpp"
#include "solv/pool.hpp"
#include "solv/repo.hpp"

namespace bevenv::solver::detail {

// One auxiliary solvable of a name's version ladder: rung k stands for "a version at
// position <= k is installed" (positions count the name's versions, oldest first).
struct Rung {
  std::size_t ladder = 0;
  std::size_t position = 0;
};

class VersionLadders {
 public:
  // Chains a ladder into `repo` for each name of `by_name` with at least `min_versions`
  // versions (sorting those names' versions, oldest first).
  void add(solv::PackagePool& pool, solv::Repo& repo,
           std::unordered_map<std::string, std::vector<Provider>>& by_name,
           std::size_t min_versions);

  // The laddered versions: a multiversion job must name them, so that libsolv writes no
  // pairwise rules for them.
  const std::vector<SolvableId>& laddered() const { return laddered_; }
  // The rung `solvable` is, when it is a ladder's auxiliary solvable (never in a result).
  const Rung* rung(SolvableId solvable) const;
  // The place of a laddered version on its name's ladder, else null.
  const Rung* version_rung(SolvableId solvable) const;
  // Whether `dep` is the dependency of a version on its own rung.
  bool is_rung_dep(DepId dep) const;
  // Whether installing `version` installs `aux` through its ladder (same name, `version` at
  // or below the rung), so that a conflict with `aux` is one with `version`.
  bool climbs_to(SolvableId version, SolvableId aux) const;

 private:
  void add_ladder(solv::PackagePool& pool, solv::Repo& repo, const std::string& name,
                  const std::vector<Provider>& versions, const solv::ReservedSolvables& aux,
                  std::size_t& next_aux);

  // By solvable id; `ladder` is no_ladder where the solvable has no rung.
  static constexpr std::size_t no_ladder = static_cast<std::size_t>(-1);
  std::vector<SolvableId> laddered_;
  std::vector<Rung> rung_of_version_;
  std::vector<Rung> rung_of_aux_;
  std::vector<bool> is_rung_name_;  // by string id
  std::size_t ladder_count_ = 0;
  StringId empty_evr_;
};

}  // namespace bevenv::solver::detail
