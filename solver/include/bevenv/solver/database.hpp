#pragma once
// What the solver can choose from: package records, including the target system's own
// (virtual packages such as `__cuda`, or packages already present in a base image).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bevenv/core/specifier.hpp"
#include "bevenv/core/version.hpp"
#include "bevenv/util/shared_text.hpp"

namespace bevenv::solver {

// One edge of the package graph: `name` restricted to `specifier`, and where it came from
// (e.g. "mmdet3d/__init__.py, v0.17.1" or "rule `mmcv-wheels`"), shown in explanations.
struct Dependency {
  std::string name;  // normalized by Database::add / solve()
  core::SpecifierSet specifier;
  util::SharedText origin;  // shared by the requirements of one record
};

// An extra name a record answers to (`__sm` capability 8.6 on a host record). Without a
// version it is provided at the record's own version.
struct Provide {
  std::string name;
  std::optional<core::Version> version;
};

enum class RecordKind : unsigned char {
  available,  // may be chosen
  system,     // already on the target and fixed: never replaced, never removed; a fact,
              // so its own requirements and conflicts are not solved for
};

struct PackageRecord {
  // What the record is.
  std::string name;
  core::Version version;
  std::string source;  // where the record came from (index URL, "host"), for reports
  // How the solver treats it.
  RecordKind kind = RecordKind::available;
  bool preferred = false;   // tried before other versions of its name
  bool disfavored = false;  // tried only when nothing else works
  // What it needs and offers.
  std::vector<Dependency> requirements;
  std::vector<Dependency> conflicts;
  std::vector<Provide> provides;

  bool is_prerelease() const { return version.is_prerelease(); }
};

using RecordId = std::size_t;

// PEP 503 normalization, except for virtual names (`__cuda`, `__sm`), which are kept as they
// are: normalizing would turn their underscores into `-`.
std::string normalize_package_name(std::string_view name);

class Database {
 public:
  // Normalizes the record's names (its own, its dependencies', its provides') and stores it.
  RecordId add(PackageRecord record);
  // A system record standing for a fact about the target, e.g. `__cuda` 12.2.
  RecordId add_virtual(std::string name, core::Version version, std::vector<Provide> provides = {});

  // Room for `count` records in all, so that adding them moves none.
  void reserve(std::size_t count) { records_.reserve(count); }
  // Appends requirements found after the record was added (a package's published metadata
  // completing a curated record), normalized as add() does.
  void add_requirements(RecordId id, std::vector<Dependency> requirements);

  const std::vector<PackageRecord>& records() const { return records_; }
  const PackageRecord& record(RecordId id) const { return records_.at(id); }
  // Records whose own name is `name` (normalized), in insertion order.
  std::vector<RecordId> find(const std::string& name) const;
  std::size_t size() const { return records_.size(); }

 private:
  std::vector<PackageRecord> records_;
  std::unordered_map<std::string, std::vector<RecordId>> by_name_;
};

}  // namespace bevenv::solver
