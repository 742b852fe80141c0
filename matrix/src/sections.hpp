#pragma once
// Per-section readers: each turns one top-level TOML key of a file into records, reporting
// problems into the file's diagnostics. Cross-record checks happen later, in validate.cpp.
#include <toml++/toml.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bevenv/matrix/model.hpp"
#include "toml_reader.hpp"

namespace bevenv::matrix::detail {

// A profile as written: unset fields are inherited along `extends`.
struct RawProfile {
  Profile own;  // name, origin and the lists/maps written in this record
  std::optional<std::string> python, cuda, base_image, summary;
  std::optional<double> train_gpu_memory_gib;
  std::optional<MemoryBasis> memory_basis;
  std::optional<std::int64_t> dataloader_workers_per_gpu;
  std::optional<bool> offline;
  toml::source_position extends_at;
};

struct MetaRecord {
  std::optional<std::string> version;
  std::int64_t schema = 1;
  Origin origin;
};

template <class T>
struct Layered {
  std::size_t layer_index = 0;
  T record;
};

// Package versions grouped by normalized name as they are read, so that merging can hand a
// name's records to its Package whole instead of moving each one again.
struct NamedRecords {
  std::vector<PackageVersion> versions;  // reading order
  std::vector<std::size_t> layers;       // the layer index of each
};

class PackageRecords {
 public:
  // A new record of `name` (normalized) in `layer`, to be filled in by the caller. A name seen
  // first gets room for `expected` records.
  PackageVersion& add(std::size_t layer, const std::string& name, std::size_t expected = 1);
  // Appends `other`'s records after this one's.
  void absorb(PackageRecords&& other);
  std::map<std::string, NamedRecords, std::less<>>& by_name() { return by_name_; }

 private:
  std::map<std::string, NamedRecords, std::less<>> by_name_;
  NamedRecords* last_ = nullptr;  // records of one name tend to come together
  std::string last_name_;
};

struct Collected {
  std::vector<Layered<MetaRecord>> meta;
  PackageRecords packages;
  std::vector<Layered<Rule>> rules;
  std::vector<Layered<Toolkit>> toolkits;
  std::vector<Layered<RawProfile>> profiles;
  std::vector<Layered<Observed>> observed;
  std::vector<Layered<ObservedHost>> observed_hosts;
  std::vector<Layered<Failure>> failures;
};

void read_meta(const toml::node& node, const FileContext& file, std::size_t layer, Collected& out);
void read_packages(const toml::node& node, const FileContext& file, std::size_t layer,
                   Collected& out);

// `[[name]]` entries of a top-level key; reports a non-array or non-table entry.
std::vector<const toml::table*> entries_of(const toml::node& node, std::string_view name,
                                           const FileContext& file);

// Where an observation (`observed`, `observed_host`) was written: it counts as the observed layer
// whichever file holds it.
inline Origin observation_origin(const TableReader& reader, const FileContext& file) {
  Origin origin = file.origin(reader.position());
  origin.layer = Layer::observed;
  return origin;
}

// Readers of one `[[section]]` entry: the record, or nothing when the entry had errors (reported).
std::optional<Rule> read_rule(TableReader& reader, const FileContext& file);
std::optional<Toolkit> read_toolkit(TableReader& reader, const FileContext& file);
std::optional<RawProfile> read_profile(TableReader& reader, const FileContext& file);
std::optional<Observed> read_observation(TableReader& reader, const FileContext& file);
std::optional<ObservedHost> read_observed_host(TableReader& reader, const FileContext& file);
std::optional<Failure> read_failure(TableReader& reader, const FileContext& file);

// A section whose entries are read one at a time: called as `read_rules(node, file, layer, out)`,
// it reads each entry of `key` with `read_entry` and keeps its records, with `layer`, in `records`.
template <class T>
struct EntrySection {
  std::string_view key;
  std::optional<T> (*read_entry)(TableReader& reader, const FileContext& file);
  std::vector<Layered<T>> Collected::*records;

  void operator()(const toml::node& node, const FileContext& file, std::size_t layer,
                  Collected& out) const {
    for (const toml::table* entry : entries_of(node, key, file)) {
      TableReader reader(*entry, std::string(key), file);
      if (std::optional<T> record = read_entry(reader, file)) {
        (out.*records).push_back({layer, std::move(*record)});
      }
    }
  }
};

inline constexpr EntrySection<Rule> read_rules{"rule", read_rule, &Collected::rules};
inline constexpr EntrySection<Toolkit> read_toolkits{"toolkit", read_toolkit, &Collected::toolkits};
inline constexpr EntrySection<RawProfile> read_profiles{"profile", read_profile,
                                                        &Collected::profiles};
inline constexpr EntrySection<Observed> read_observed{"observed", read_observation,
                                                      &Collected::observed};
inline constexpr EntrySection<ObservedHost> read_observed_hosts{"observed_host", read_observed_host,
                                                                &Collected::observed_hosts};
inline constexpr EntrySection<Failure> read_failures{"failure", read_failure, &Collected::failures};

// A rule's id: lower-case letters, digits, `-`, `.`, starting with a letter or digit.
bool is_rule_id(std::string_view id);
// `F2` for a field failure, else a rule-like id (`numpy-aliases`): the catalogue's two forms.
bool is_failure_id(std::string_view id);
// The required `id`; one `valid` rejects is reported as "`CONTEXT.id`: `ID` must be MUST_BE".
std::optional<std::string> read_id(TableReader& reader, bool (*valid)(std::string_view),
                                   std::string_view must_be);

// `packages = { torch = "<1.11" }` of a condition into `out`; false when an entry could not be
// read (reported).
bool read_package_conditions(TableReader& reader, const FileContext& file,
                             std::vector<PackageCondition>& out);

// A build step table (`package.build_step`, `profile.build`).
std::optional<BuildStep> read_build_step(const toml::table& table, std::string context,
                                         const FileContext& file, bool needs_name);
// `sm_86` / `compute_86`: the architecture spelling lists use.
bool is_arch_name(std::string_view text, std::string_view prefix);
void check_arch_list(TableReader& reader, std::string_view key,
                     const std::vector<std::string>& values, std::string_view prefix);

// Merging and checks over all files (validate.cpp).
std::vector<Diagnostic> build_matrix(Collected&& collected, Matrix& out, bool known_only);

}  // namespace bevenv::matrix::detail
