#include <algorithm>
#include <cctype>

#include "bevenv/core/name.hpp"
#include "model_words.hpp"
#include "sections.hpp"
#include "source_ref.hpp"

namespace bevenv::matrix::detail {
namespace {

const std::vector<std::string> kDepsKinds = {"curated", "complete"};

// Fields a version record and its variants share; a variant overrides what it sets. `label`
// names the record in messages (`numpy 1.20.0`).
void read_common(TableReader& reader, PackageVersion& record, std::string_view label) {
  if (auto python = reader.specifier("python")) record.python = std::move(*python);
  if (auto cuda = reader.version("cuda")) record.cuda = std::move(*cuda);
  if (auto sass = reader.strings("sass")) {
    check_arch_list(reader, "sass", *sass, "sm_");
    record.sass = std::move(*sass);
  }
  if (auto ptx = reader.strings("ptx")) {
    check_arch_list(reader, "ptx", *ptx, "compute_");
    record.ptx = std::move(*ptx);
  }
  if (auto published = reader.boolean("published")) record.local_is_published = *published;
  if (auto index = reader.string("index")) record.index_url = std::move(*index);
  if (auto links = reader.string("find_links")) record.find_links = std::move(*links);
  if (auto url = reader.string("url")) record.artifact_url = std::move(*url);
  if (auto sha = reader.string("sha256")) record.sha256 = std::move(*sha);
  if (reader.has("requires")) record.requirements = reader.requirements("requires");
  if (auto note = reader.string("note")) record.note = std::move(*note);
  if (auto sources = reader.strings("sources")) {
    check_sources(reader, "sources", label);
    record.sources.insert(record.sources.end(), sources->begin(), sources->end());
  }
}

bool is_sha256(const std::string& sha) {
  return sha.size() == 64 && std::all_of(sha.begin(), sha.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

void check_sha256(TableReader& reader, const PackageVersion& record) {
  if (!record.sha256.empty() && !is_sha256(record.sha256)) {
    reader.file_error(reader.position("sha256"),
                      "`" + reader.context() + ".sha256`: expected 64 hexadecimal digits");
  }
}

// `artifacts = [{ filename, url, sha256, size }]`: the generated layer's files of a release.
void read_artifacts(TableReader& reader, PackageVersion& record) {
  reader.each_table("artifacts", [&](TableReader& entry) {
    Artifact artifact;
    const auto filename = entry.string("filename", true);
    const auto url = entry.string("url", true);
    const auto sha = entry.string("sha256", true);
    const auto size = entry.integer("size");
    entry.finish();
    if (sha && !is_sha256(*sha)) {
      entry.file_error(entry.position("sha256"),
                       "`" + entry.context() + ".sha256`: expected 64 hexadecimal digits");
    }
    if (size && *size < 0) {
      entry.file_error(entry.position("size"),
                       "`" + entry.context() + ".size`: expected a size in bytes (0 or more)");
    }
    if (!filename || !url || !sha || !entry.ok()) return;
    artifact.filename = *filename;
    artifact.url = *url;
    artifact.sha256 = *sha;
    if (size) artifact.size = static_cast<std::uint64_t>(*size);
    record.artifacts.push_back(std::move(artifact));
  });
  std::sort(record.artifacts.begin(), record.artifacts.end(),
            [](const Artifact& a, const Artifact& b) { return a.filename < b.filename; });
}

// `generated = { index, read }`: marks a record of the generated layer.
void read_provenance(TableReader& reader, const FileContext& file, PackageVersion& record) {
  const toml::table* table = reader.table("generated");
  if (table == nullptr) return;
  TableReader entry(*table, reader.context() + ".generated", file);
  const auto index = entry.string("index", true);
  const auto read = entry.string("read", true);
  entry.finish();
  if (index && read) record.generated = Provenance{*index, *read};
}

// `step_written`: a `build_step` key exists (its own errors are reported where it is read).
void finish_record(TableReader& reader, const PackageVersion& record, bool step_written) {
  check_sha256(reader, record);
  // A generated source record is the sdist of a curated one, which has the step (merge.cpp).
  if (record.build == BuildKind::source && !record.build_step && !step_written &&
      !record.generated) {
    reader.file_error(reader.position(),
                      "`" + reader.context() + "`: `build = \"source\"` needs a `build_step`");
  }
  // A generated record's source is its `generated` table.
  if (record.sources.empty() && !record.generated) {
    reader.file_error(reader.position(),
                      "`" + reader.context() + "`: missing required key `sources` (at least one)");
  }
}

std::optional<core::Version> with_local(const core::Version& base, const std::string& local,
                                        TableReader& reader) {
  if (local.empty()) return base;
  auto parsed = core::Version::parse(base.to_string() + "+" + local);
  if (!parsed) {
    reader.file_error(reader.position("local"), "`" + reader.context() +
                                                    ".local`: invalid local "
                                                    "version `" +
                                                    local + "`: " + parsed.error().to_string());
    return std::nullopt;
  }
  return std::move(parsed).value();
}

}  // namespace

void read_packages(const toml::node& node, const FileContext& file, std::size_t layer,
                   Collected& out) {
  for (const toml::table* entry : entries_of(node, "package", file)) {
    TableReader reader(*entry, "package", file);
    PackageVersion base;
    base.origin = file.origin(reader.position());
    const auto name = reader.string("name", true);
    if (name && !core::is_valid_name(*name)) {
      reader.file_error(reader.position("name"),
                        "`package.name`: `" + *name + "` is not a valid project name");
    }
    if (name) base.name = core::normalize_name(*name);
    const auto version = reader.version("version", true);
    const std::string label = name ? *name + (version ? " " + version->to_string() : "") : "";
    read_common(reader, base, label);
    read_artifacts(reader, base);
    read_provenance(reader, file, base);
    if (auto build = reader.choice("build", kBuildKindWords)) base.build = *build;
    if (const toml::table* step = reader.table("build_step")) {
      base.build_step = read_build_step(*step, "package.build_step", file, false);
      if (base.build_step) base.build_step->package = base.name;
    }
    if (auto deps = reader.choice("deps", kDepsKinds, "curated")) {
      base.deps_complete = *deps == "complete";
    }
    const bool step_written = reader.has("build_step");
    const auto variants = reader.tables("variants");
    reader.finish();
    if (!name || !version) continue;
    base.version = *version;
    if (variants.empty()) {
      finish_record(reader, base, step_written);
      out.packages.add(layer, base.name) = std::move(base);
      continue;
    }
    if (version->has_local()) {
      reader.file_error(reader.position("version"),
                        "`package.version`: a record with `variants` takes the public version; "
                        "put `+" +
                            version->local_string() + "` in a variant's `local`");
      continue;
    }
    for (const toml::table* variant_table : variants) {
      TableReader variant(*variant_table, "package.variants", file);
      PackageVersion record = base;
      record.origin = file.origin(variant.position());
      const auto local = variant.string("local", true);
      read_common(variant, record, local ? label + "+" + *local : label);
      variant.finish();
      if (!local) continue;
      auto full = with_local(*version, *local, variant);
      if (!full) continue;
      record.version = std::move(*full);
      finish_record(variant, record, step_written);
      out.packages.add(layer, record.name) = std::move(record);
    }
  }
}

}  // namespace bevenv::matrix::detail
