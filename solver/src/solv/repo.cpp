#include "solv/repo.hpp"

#include "solv/pool.hpp"

namespace bevenv::solver::solv {

Id Repo::add_solvable(Id name, Id evr) {
  const Id id = repo_add_solvable(repo_);
  ::Solvable& s = pool_->solvable(id);
  s.name = name;
  s.evr = evr;
  s.arch = ARCH_NOARCH;
  s.provides =
      repo_addid_dep(repo_, s.provides, pool_rel2id(pool_->raw(), name, evr, REL_EQ, 1), 0);
  return id;
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
