#pragma once
// RAII over libsolv's Pool: string/relation interning, solvable access, whatprovides, and a
// namespace callback that lets bevenv decide which solvables satisfy a dependency.
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "solv/c_api.hpp"

namespace bevenv::solver::solv {

class Queue;
class Repo;

// Given the namespace's argument id, return the solvables that satisfy it.
using NamespaceResolver = std::function<std::vector<Id>(Id argument)>;

class PackagePool {
 public:
  // Creates a pool that compares EVR strings with dpkg's rules (see evr.hpp for why).
  PackagePool();
  ~PackagePool();
  PackagePool(const PackagePool&) = delete;
  PackagePool& operator=(const PackagePool&) = delete;

  Id intern(std::string_view text);
  std::string_view text(Id id) const;
  // The relation `namespace(argument)` that resolve_namespace() answers.
  Id namespace_dep(Id argument);
  void set_namespace_resolver(NamespaceResolver resolver);
  // The argument of `dep` when it is a namespace_dep(), else 0.
  Id namespace_argument(Id dep) const;
  Id string_count() const { return pool_.get()->ss.nstrings; }

  // Compares two EVR strings as the solver's policy will.
  int compare_evr(const std::string& a, const std::string& b) const;

  Repo add_repo(const char* name);
  void set_installed(const Repo& repo);
  void create_whatprovides();
  std::vector<Id> whatprovides(Id dep);
  // An id for a list of solvables, as SOLVER_SOLVABLE_ONE_OF jobs take.
  Id list_id(Queue& solvables);

  ::Solvable& solvable(Id id) { return *pool_id2solvable(pool_.get(), id); }
  const ::Solvable& solvable(Id id) const { return *pool_id2solvable(pool_.get(), id); }
  std::string_view solvable_name(Id id) const { return text(solvable(id).name); }
  std::string_view solvable_evr(Id id) const { return text(solvable(id).evr); }
  Id solvable_count() const { return pool_.get()->nsolvables; }

  ::Pool* raw() { return pool_.get(); }

 private:
  static Id resolve_namespace(::Pool* pool, void* self, Id name, Id argument);

  struct Free {
    void operator()(::Pool* pool) const { pool_free(pool); }
  };
  std::unique_ptr<::Pool, Free> pool_;
  Id namespace_name_ = 0;
  NamespaceResolver resolver_;
};

}  // namespace bevenv::solver::solv
