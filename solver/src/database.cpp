#include "bevenv/solver/database.hpp"

#include "bevenv/core/name.hpp"

namespace bevenv::solver {

std::string normalize_package_name(std::string_view name) {
  if (name.size() > 2 && name.substr(0, 2) == "__") return std::string(name);
  return core::normalize_name(name);
}

namespace {

// Names arrive normalized from the app far more often than not: only the others are copied.
void normalize_in_place(std::string& name) {
  if (!core::is_normalized_name(name)) name = normalize_package_name(name);
}

}  // namespace

RecordId Database::add(PackageRecord record) {
  normalize_in_place(record.name);
  for (auto& d : record.requirements) normalize_in_place(d.name);
  for (auto& d : record.conflicts) normalize_in_place(d.name);
  for (auto& p : record.provides) normalize_in_place(p.name);
  const RecordId id = records_.size();
  by_name_[record.name].push_back(id);
  records_.push_back(std::move(record));
  return id;
}

RecordId Database::add_virtual(std::string name, core::Version version,
                               std::vector<Provide> provides) {
  PackageRecord record;
  record.name = std::move(name);
  record.version = std::move(version);
  record.provides = std::move(provides);
  record.kind = RecordKind::system;
  record.source = "system";
  return add(std::move(record));
}

void Database::add_requirements(RecordId id, std::vector<Dependency> requirements) {
  auto& target = records_.at(id).requirements;
  for (auto& d : requirements) {
    d.name = normalize_package_name(d.name);
    target.push_back(std::move(d));
  }
}

std::vector<RecordId> Database::find(const std::string& name) const {
  const auto found = by_name_.find(normalize_package_name(name));
  return found == by_name_.end() ? std::vector<RecordId>{} : found->second;
}

}  // namespace bevenv::solver
