#pragma once
// libsolv numbers solvables, strings, dependencies and jobs with one integer type, `Id`, so a
// solvable passed where a dependency is expected compiles and fails at run time. These types
// give each kind of id its own type; only the wrappers in solv/ build them from, or read
// them as, libsolv's `Id` (raw()).
#include <compare>
#include <cstddef>
#include <functional>

#include "solv/c_api.hpp"

namespace bevenv::solver::solv {

template <class Tag>
class TypedId {
 public:
  constexpr TypedId() = default;  // libsolv's 0: no such id
  constexpr explicit TypedId(Id raw) : raw_(raw) {}

  constexpr Id raw() const { return raw_; }
  constexpr bool is_none() const { return raw_ == 0; }
  // The id as a position in a table by id; only for kinds libsolv numbers densely from 0.
  constexpr std::size_t index() const requires Tag::dense { return static_cast<std::size_t>(raw_); }

  friend constexpr bool operator==(TypedId, TypedId) = default;
  friend constexpr auto operator<=>(TypedId, TypedId) = default;

 private:
  Id raw_ = 0;
};

// Whether libsolv numbers a kind of id densely from 0 (so an id may index a table: index()).
struct DenseIds {
  static constexpr bool dense = true;
};
struct SparseIds {
  static constexpr bool dense = false;
};

// A package (or auxiliary) solvable of the pool.
struct SolvableTag : DenseIds {};
// An interned string: a name, an EVR, a namespace argument.
struct StringTag : DenseIds {};
// What a solvable requires, conflicts with or provides: a plain name or a relation.
struct DepTag : SparseIds {};
// A job of a job queue, as libsolv's job rules name it (its offset in the queue).
struct JobTag : SparseIds {};
// A list of solvables interned in the pool, as a "one of" job selects.
struct SolvableListTag : SparseIds {};

// A problem of a failed solve, and one of the rules taking part in it.
struct ProblemTag : SparseIds {};
struct RuleTag : SparseIds {};

using SolvableId = TypedId<SolvableTag>;
using StringId = TypedId<StringTag>;
using DepId = TypedId<DepTag>;
using JobId = TypedId<JobTag>;
using SolvableListId = TypedId<SolvableListTag>;
using ProblemId = TypedId<ProblemTag>;
using RuleId = TypedId<RuleTag>;

// A plain name is a dependency too: every solvable that provides the name satisfies it.
constexpr DepId dep_on_name(StringId name) { return DepId(name.raw()); }

// The name `dep` is when it is a plain name, else none (relations are never strings).
constexpr StringId plain_name_of(DepId dep) {
  return dep.raw() > 0 ? StringId(dep.raw()) : StringId();
}

}  // namespace bevenv::solver::solv

// The solver's domain layer names these ids unqualified.
namespace bevenv::solver::detail {
using solv::DepId;
using solv::JobId;
using solv::SolvableId;
using solv::StringId;
}  // namespace bevenv::solver::detail

template <class Tag>
struct std::hash<bevenv::solver::solv::TypedId<Tag>> {
  std::size_t operator()(bevenv::solver::solv::TypedId<Tag> id) const noexcept {
    return std::hash<Id>{}(id.raw());
  }
};
