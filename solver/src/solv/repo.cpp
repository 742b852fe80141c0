#include "solv/repo.hpp"

#include "solv/pool.hpp"

namespace bevenv::solver::solv {

Id Repo::add_solvable(Id name, Id evr) {
  const Id id = add_solvables(1);
  set_solvable(id, name, evr);
  return id;
}

Id Repo::add_solvables(int count) { return repo_add_solvable_block(repo_, count); }

void Repo::set_solvable(Id id, Id name, Id evr) {
  ::Solvable& s = pool_->solvable(id);
  s.name = name;
  s.evr = evr;
  s.arch = ARCH_NOARCH;
  // The plain name, not `name = evr`: bevenv never asks libsolv to match versions (its
  // dependencies are namespace relations), and libsolv's relation hash clusters badly on
  // (name, evr) pairs, which made interning them a tenth of a 100k-version solve.
  s.provides = repo_addid_dep(repo_, s.provides, name, 0);
}

void Repo::add_provide(Id solvable, Id dep) {
  ::Solvable& s = pool_->solvable(solvable);
  s.provides = repo_addid_dep(repo_, s.provides, dep, 0);
}

void Repo::add_requirement(Id solvable, Id dep) {
  ::Solvable& s = pool_->solvable(solvable);
  s.solv_requires = repo_addid_dep(repo_, s.solv_requires, dep, 0);
}

void Repo::add_conflict(Id solvable, Id dep) {
  ::Solvable& s = pool_->solvable(solvable);
  s.conflicts = repo_addid_dep(repo_, s.conflicts, dep, 0);
}

void Repo::internalize() { repo_internalize(repo_); }

}  // namespace bevenv::solver::solv
