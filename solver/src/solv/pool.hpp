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
#include "solv/ids.hpp"

namespace bevenv::solver::solv {

class Queue;
class Repo;

// Given the namespace's argument, return the solvables that satisfy it.
using NamespaceResolver = std::function<std::vector<SolvableId>(StringId argument)>;

class PackagePool {
 public:
  // Creates a pool that compares EVR strings with dpkg's rules (see evr.hpp for why).
  PackagePool();
  ~PackagePool();
  PackagePool(const PackagePool&) = delete;
  PackagePool& operator=(const PackagePool&) = delete;

  StringId intern(std::string_view text);
  std::string_view text(StringId id) const;
  // The relation `namespace(argument)` that resolve_namespace() answers.
  DepId namespace_dep(StringId argument);
  void set_namespace_resolver(NamespaceResolver resolver);
  // The argument of `dep` when it is a namespace_dep(), else none.
  StringId namespace_argument(DepId dep) const;
  std::size_t string_count() const { return static_cast<std::size_t>(pool_.get()->ss.nstrings); }

  // Compares two EVR strings as the solver's policy will.
  int compare_evr(const std::string& a, const std::string& b) const;

  Repo add_repo(const char* name);
  void set_installed(const Repo& repo);
  void create_whatprovides();
  // Const as a lookup: libsolv may cache a relation's providers on first use (asking the
  // namespace resolver), which changes no answer.
  std::vector<SolvableId> whatprovides(DepId dep) const;
  // An id for a list of solvables, as SOLVER_SOLVABLE_ONE_OF jobs take.
  SolvableListId list_id(const std::vector<SolvableId>& solvables);

  ::Solvable& solvable(SolvableId id) { return *pool_id2solvable(pool_.get(), id.raw()); }
  const ::Solvable& solvable(SolvableId id) const {
    return *pool_id2solvable(pool_.get(), id.raw());
  }
  std::string_view solvable_name(SolvableId id) const { return text(StringId(solvable(id).name)); }
  std::string_view solvable_evr(SolvableId id) const { return text(StringId(solvable(id).evr)); }
  std::size_t solvable_count() const { return static_cast<std::size_t>(pool_.get()->nsolvables); }
  // The repo `id` was added to.
  Repo repo_of(SolvableId id);

  ::Pool* raw() { return pool_.get(); }

 private:
  static Id resolve_namespace(::Pool* pool, void* self, Id name, Id argument);

  struct Free {
    void operator()(::Pool* pool) const { pool_free(pool); }
  };
  std::unique_ptr<::Pool, Free> pool_;
  StringId namespace_name_;
  NamespaceResolver resolver_;
};

}  // namespace bevenv::solver::solv
