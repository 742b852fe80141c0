#pragma once
// A handle on a libsolv Repo (owned by its Pool) with helpers to add solvables.
#include <cstddef>

#include "solv/c_api.hpp"
#include "solv/ids.hpp"

namespace bevenv::solver::solv {

class PackagePool;

// `count` solvables with consecutive ids, reserved in one allocation.
class ReservedSolvables {
 public:
  ReservedSolvables(Id first, int count) : first_(first), count_(count) {}
  SolvableId operator[](std::size_t i) const { return SolvableId(first_ + static_cast<Id>(i)); }
  std::size_t size() const { return static_cast<std::size_t>(count_); }

 private:
  Id first_;
  int count_;
};

class Repo {
 public:
  Repo(PackagePool& pool, ::Repo* repo) : pool_(&pool), repo_(repo) {}

  // Adds a solvable named `name` at `evr` that provides its name; returns its id.
  SolvableId add_solvable(StringId name, StringId evr);
  // Reserves `count` consecutive solvables (ids as `count` add_solvable calls would give, in
  // one allocation). Each must then be set with set_solvable().
  ReservedSolvables add_solvables(int count);
  void set_solvable(SolvableId solvable, StringId name, StringId evr);
  void add_provide(SolvableId solvable, DepId dep);
  void add_requirement(SolvableId solvable, DepId dep);
  void add_conflict(SolvableId solvable, DepId dep);
  // Builds the lookup structures; call once all solvables are added.
  void internalize();

  ::Repo* raw() const { return repo_; }

 private:
  PackagePool* pool_;
  ::Repo* repo_;
};

}  // namespace bevenv::solver::solv
