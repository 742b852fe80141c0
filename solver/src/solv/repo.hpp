#pragma once
// A handle on a libsolv Repo (owned by its Pool) with helpers to add solvables.
#include <string_view>

#include "solv/c_api.hpp"

namespace bevenv::solver::solv {

class PackagePool;

class Repo {
 public:
  Repo(PackagePool& pool, ::Repo* repo) : pool_(&pool), repo_(repo) {}

  // Adds a solvable named `name` at `evr` that provides its name; returns its id.
  Id add_solvable(Id name, Id evr);
  // Reserves `count` consecutive solvables (ids as `count` add_solvable calls would give, in
  // one allocation); returns the first. Each must then be set with set_solvable().
  Id add_solvables(int count);
  void set_solvable(Id solvable, Id name, Id evr);
  void add_provide(Id solvable, Id dep);
  void add_requirement(Id solvable, Id dep);
  void add_conflict(Id solvable, Id dep);
  // Builds the lookup structures; call once all solvables are added.
  void internalize();

  ::Repo* raw() const { return repo_; }

 private:
  PackagePool* pool_;
  ::Repo* repo_;
};

}  // namespace bevenv::solver::solv
