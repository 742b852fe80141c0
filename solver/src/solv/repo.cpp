#include "solv/repo.hpp"

#include "solv/pool.hpp"

namespace bevenv::solver::solv {

SolvableId Repo::add_solvable(StringId name, StringId evr) {
  const SolvableId id = add_solvables(1)[0];
  set_solvable(id, name, evr);
  return id;
}

ReservedSolvables Repo::add_solvables(int count) {
  return ReservedSolvables(repo_add_solvable_block(repo_, count), count);
}

void Repo::set_solvable(SolvableId id, StringId name, StringId evr) {
  ::Solvable& s = pool_->solvable(id);
  s.name = name.raw();
  s.evr = evr.raw();
  s.arch = ARCH_NOARCH;
  // The plain name, not `name = evr`: bevenv never asks libsolv to match versions (its
  // dependencies are namespace relations), and libsolv's relation hash clusters badly on
  // (name, evr) pairs, which made interning them a tenth of a 100k-version solve.
  s.provides = repo_addid_dep(repo_, s.provides, name.raw(), 0);
}

void Repo::add_provide(SolvableId solvable, DepId dep) {
  ::Solvable& s = pool_->solvable(solvable);
  s.provides = repo_addid_dep(repo_, s.provides, dep.raw(), 0);
}

void Repo::add_requirement(SolvableId solvable, DepId dep) {
  ::Solvable& s = pool_->solvable(solvable);
  s.solv_requires = repo_addid_dep(repo_, s.solv_requires, dep.raw(), 0);
}

void Repo::add_conflict(SolvableId solvable, DepId dep) {
  ::Solvable& s = pool_->solvable(solvable);
  s.conflicts = repo_addid_dep(repo_, s.conflicts, dep.raw(), 0);
}

void Repo::internalize() { repo_internalize(repo_); }

}  // namespace bevenv::solver::solv
