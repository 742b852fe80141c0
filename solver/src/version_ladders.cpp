#include "version_ladders.hpp"

#include <algorithm>

namespace bevenv::solver::detail {

// "At most one version of X" as a sequential counter: with X's versions v0 < v1 < … < vn-1,
// auxiliary solvable k (k < n-1) stands for "some version at position <= k is installed":
//   vk requires rung k;  rung k requires rung k+1;  vk conflicts with rung k-1.
// Installing vj installs every rung from j up, and every vk above j conflicts with one of
// them, while every vk below j would need rung j-1, which vj conflicts with. The versions
// are marked multiversion so libsolv leaves out its pairwise rules; its version preference
// is by name and unchanged.
void VersionLadders::add(solv::PackagePool& pool, solv::Repo& repo,
                         std::unordered_map<std::string, std::vector<Provider>>& by_name,
                         std::size_t min_versions) {
  // Interned even when no name gets a ladder, so that the pool's string ids stay as they were.
  empty_evr_ = pool.intern("");
  min_versions = std::max<std::size_t>(min_versions, 2);
  std::size_t aux_count = 0;
  for (const auto& entry : by_name) {
    if (entry.second.size() >= min_versions) aux_count += entry.second.size() - 1;
  }
  if (aux_count == 0) return;
  const solv::ReservedSolvables aux = repo.add_solvables(static_cast<int>(aux_count));
  std::size_t next_aux = 0;
  rung_of_version_.assign(pool.solvable_count(), Rung{no_ladder, 0});
  rung_of_aux_.assign(pool.solvable_count(), Rung{no_ladder, 0});
  for (auto& [name, versions] : by_name) {
    if (versions.size() < min_versions) continue;
    std::stable_sort(versions.begin(), versions.end(),
                     [](const Provider& a, const Provider& b) { return *a.version < *b.version; });
    add_ladder(pool, repo, name, versions, aux, next_aux);
  }
}

// One name's ladder: its rungs from `aux` (from `next_aux` on), then each version's step on.
void VersionLadders::add_ladder(solv::PackagePool& pool, solv::Repo& repo, const std::string& name,
                                const std::vector<Provider>& versions,
                                const solv::ReservedSolvables& aux, std::size_t& next_aux) {
  const std::size_t ladder = ladder_count_++;
  const std::size_t rungs = versions.size() - 1;
  std::vector<StringId> rung_names(rungs);
  std::vector<SolvableId> rung_solvables(rungs);
  // `#` never occurs in a normalized package name.
  std::string rung_name = name + '#';
  const std::size_t prefix = rung_name.size();
  for (std::size_t k = 0; k < rungs; ++k) {
    rung_name.resize(prefix);
    rung_name += std::to_string(k);
    rung_names[k] = pool.intern(rung_name);
    const std::size_t name_index = rung_names[k].index();
    if (name_index >= is_rung_name_.size()) is_rung_name_.resize(name_index + 1, false);
    is_rung_name_[name_index] = true;
    rung_solvables[k] = aux[next_aux++];
    repo.set_solvable(rung_solvables[k], rung_names[k], empty_evr_);
    rung_of_aux_[rung_solvables[k].index()] = Rung{ladder, k};
  }
  for (std::size_t k = 0; k < versions.size(); ++k) {
    const SolvableId version = versions[k].solvable;
    laddered_.push_back(version);
    rung_of_version_[version.index()] = Rung{ladder, k};
    if (k < rungs) repo.add_requirement(version, solv::dep_on_name(rung_names[k]));
    if (k > 0) repo.add_conflict(version, solv::dep_on_name(rung_names[k - 1]));
    if (k + 1 < rungs) {
      repo.add_requirement(rung_solvables[k], solv::dep_on_name(rung_names[k + 1]));
    }
  }
}

const Rung* VersionLadders::rung(SolvableId solvable) const {
  const std::size_t index = solvable.index();
  if (solvable.is_none() || index >= rung_of_aux_.size()) return nullptr;
  return rung_of_aux_[index].ladder == no_ladder ? nullptr : &rung_of_aux_[index];
}

bool VersionLadders::is_rung_dep(DepId dep) const {
  const StringId name = solv::plain_name_of(dep);
  return !name.is_none() && name.index() < is_rung_name_.size() && is_rung_name_[name.index()];
}

const Rung* VersionLadders::version_rung(SolvableId solvable) const {
  const std::size_t index = solvable.index();
  if (solvable.is_none() || index >= rung_of_version_.size()) return nullptr;
  return rung_of_version_[index].ladder == no_ladder ? nullptr : &rung_of_version_[index];
}

bool VersionLadders::climbs_to(SolvableId version, SolvableId aux) const {
  const Rung* from = version_rung(version);
  const Rung* target = rung(aux);
  return from != nullptr && target != nullptr && from->ladder == target->ladder &&
         from->position <= target->position;
}

}  // namespace bevenv::solver::detail
