#pragma once
// Matrix records, rules and target facts become solver records and a request. The solver never
// sees matrix types; this is the one place that knows both.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bevenv/core/marker.hpp"
#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"
#include "bevenv/solver/solution.hpp"
#include "lock_inputs.hpp"

namespace bevenv::app {

// Virtual packages standing for target facts.
inline constexpr const char* kPythonVirtual = "__python";
inline constexpr const char* kCudaVirtual = "__cuda";
// `__cuda-build` X.Y: every record built against a CUDA runtime requires the one of its version,
// and only one version of a name is installed, so torch, torchvision and mmcv-full agree on one
// CUDA build (torchvision cu113 beside torch cu102 fails at import).
inline constexpr const char* kCudaBuildVirtual = "__cuda-build";
// `__kernels-sm_90`: required by builds with no SASS or PTX that runs on sm_90; nothing provides
// it, so such builds cannot be chosen and explanations say why.
std::string kernels_virtual(const GpuArch& gpu);

// Required by generated releases none of whose files fits the target, and by builds of a
// release's sdist that the matrix lists no sdist for; nothing provides it.
inline constexpr const char* kNoFileVirtual = "__file-for-target";
// The second case, as its requirement's origin says it (explanations reword it).
inline constexpr const char* kNoSdistReason = "builds its sdist, which the matrix does not list";
// A curated release that none of the sources given serves, with an index in use (the sources
// decide what exists), as its requirement's origin says it.
inline constexpr const char* kNotServedReason = "served by no source given";

// Virtual package names all begin with `__`, which no PEP 503 name can.
bool is_virtual(const std::string& name);

// Extras asked of each package (normalized name -> extra names): their requirements join the
// package's records, as pip's and uv's resolvers add an extra's dependencies to the package.
using ExtrasAsked = std::map<std::string, std::set<std::string>>;

// Which matrix records a translation turns into solver records.
enum class RecordScope {
  all,  // every one: an explanation names the builds the target rules out, and why
  // Only those the target could install. A record left out would have required a target fact
  // that does not hold (its Python range, a file for the platform, the driver's CUDA, kernels for
  // a GPU), so the solver would rule it out before choosing anything: the solutions are the
  // same, from a pool a quarter smaller. Explanations need `all`.
  installable,
};

// Solver record id -> the matrix record it stands for; virtual records have none. Records are
// made in id order, so a sorted list serves lookups (a map made a node for each of thousands).
class MatrixRecords {
 public:
  using Entry = std::pair<solver::RecordId, const matrix::PackageVersion*>;
  void add(solver::RecordId id, const matrix::PackageVersion* build);
  // The matrix record `id` stands for; null for a virtual record.
  const matrix::PackageVersion* find(solver::RecordId id) const;
  std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }

 private:
  std::vector<Entry> entries_;  // ascending id
};

// The maker of curated records an index lock keeps for the packages its search meets.
struct CuratedRecords;

struct Translation {
  RecordScope scope = RecordScope::all;
  solver::Database database;
  solver::Request request;
  // Solver record id -> the matrix record it stands for (virtual records are absent).
  MatrixRecords records;
  // Origin label -> the rule it came from, so reasons can name rule ids and sources.
  std::map<std::string, const matrix::Rule*, std::less<>> rule_origins;
  // Builds whose kernels reach the target GPU only through PTX JIT (F10), by record id.
  std::map<solver::RecordId, std::string> ptx_only;
  // `requires` rules with package conditions that hold on this target and profile: each binds the
  // versions its first package condition matches (rule_requirements()), the matrix's records
  // and the releases an index adds alike.
  std::vector<const matrix::Rule*> binding_rules;
  // `prefer` rules with package conditions, applied by solve_with_preferences() once a first
  // solution shows their conditions hold.
  std::vector<const matrix::Rule*> conditional_preferences;
  // Observed probe results that apply to this target: failures avoided, successes preferred.
  std::size_t observed_failures = 0;
  std::size_t observed_successes = 0;
  ExtrasAsked extras;  // the extras whose requirements the records carry
  // Package -> the records of its extras (`__jsonschema[format-nongpl]`, lock_extras.hpp), which
  // follow the package's preferences.
  std::map<std::string, std::vector<std::string>> extra_records;
  // Index locks only: curated packages get records when the search first meets them
  // (add_curated_records()); offline, every package the request reaches has them at once.
  std::shared_ptr<CuratedRecords> curated;
  // Set, with no records made, when the matrix lacks releases this translation needs: it was
  // loaded without the releases a newer one stands for (LockInputs::without_stood_for), and
  // this lock keeps one of them or makes records of all (RecordScope::all).
  bool needs_whole_matrix = false;
};

// With `merge_alike_later` (an offline solve that merges alike versions and adds these
// preferences after translation, installable scope only), the releases a newer release stands
// for make no record (lock_stand_ins.hpp): the solver would leave their records out.
Translation translate(const LockInputs& inputs, ExtrasAsked extras = {},
                      RecordScope scope = RecordScope::all,
                      const std::vector<solver::Preference>* merge_alike_later = nullptr);

// Index locks: makes the records of curated package `name` the first time it is asked; false
// when they were made before, offline, or when the matrix has no such package.
bool add_curated_records(Translation& translation, const std::string& name);

// What the binding rules require of `name` `version` (the requirement, its origin the rule).
std::vector<solver::Dependency> rule_requirements(const Translation& translation,
                                                  const std::string& name,
                                                  const core::Version& version);

// The extras `asked` holds for package `name`; null when none.
const std::set<std::string>* extras_of(const ExtrasAsked& asked, const std::string& name);

// The extras the profile and the user's requirements ask for (`--require 'jsonschema[x]'`).
ExtrasAsked requested_extras(const LockInputs& inputs);

// A requirement as a solver dependency of its package (its extras: lock_extras.hpp).
solver::Dependency dependency_of(const core::Requirement& r, util::SharedText origin);

// The target's marker environment, with each marker's result kept per extra: the matrix shares
// one parse among the requirements whose markers are spelled alike (hundreds of releases carry
// `python_version < "3.8"`), so a lock evaluates each once.
class TargetMarkers {
 public:
  explicit TargetMarkers(core::MarkerEnvironment env) : env_(std::move(env)) {}
  // packaging's answer for `marker` with `extra` selected (empty: none); nullopt where
  // evaluation fails (a variable the environment lacks).
  std::optional<bool> holds(const core::Marker& marker, const std::string& extra);

 private:
  struct Kept {
    core::Marker marker;  // keeps the parse, so its identity is never another marker's
    std::optional<bool> result;
  };
  core::MarkerEnvironment env_;
  std::map<std::pair<const void*, std::string>, Kept> results_;
};

// Whether a requirement holds on the target: its marker with no extra, or with one of `extras`
// (those asked of the package whose requirement it is; null: none). A marker that cannot be
// evaluated holds without an extra (the requirement is kept), never for one.
bool requirement_applies(const core::Requirement& requirement, const std::set<std::string>* extras,
                         TargetMarkers& markers);

// Solves; when a first solution meets the conditions of `prefer` rules bound to packages, adds
// those preferences and solves again (a preference never makes a solvable request unsolvable,
// so the second answer stands).
std::variant<solver::Solution, solver::Unsolvable> solve_with_preferences(Translation& translation,
                                                                          const LockInputs& inputs);

// `rule `id``: the origin label of a rule's constraint.
std::string rule_origin(const matrix::Rule& rule);

}  // namespace bevenv::app
