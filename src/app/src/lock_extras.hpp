#pragma once
// Extras as solver records of their own (`__jsonschema[format-nongpl]`), for the offline lock.
#include <optional>
#include <string>

#include "lock_translate.hpp"

namespace bevenv::app {

// `__jsonschema[format-nongpl]`: the record standing for a package with one extra.
std::string extra_record_name(const std::string& package, const std::string& extra);
// `jsonschema[format-nongpl]` for the record `__jsonschema[format-nongpl]`.
std::string extra_as_written(const std::string& record);
// `jsonschema` for `__jsonschema[format-nongpl]`; nullopt for any other name.
std::optional<std::string> package_of_extra_record(const std::string& name);

// Adds a record for each version of a package with each extra that some record may ask of it
// (beyond the extras the request asked, which the package's records carry already), and to each
// requirement naming such an extra a dependency on that extra's record.
void add_extra_records(Translation& translation, const LockInputs& inputs);

// Offline, every record's requirements are complete, so versions no specifier tells apart are
// one choice for the solver (solver::Request::merge_alike_versions); the versions the
// conditional preferences of a second solve may favour, their extras' records' included, are
// kept apart.
void merge_alike_versions(Translation& translation);

// Appends, for each preference of a package with extras' records, the same preference for those
// records, so the solver never picks an extra's record against its package's preference.
void mirror_to_extra_records(const Translation& translation,
                             std::vector<solver::Preference>& preferences);

}  // namespace bevenv::app
