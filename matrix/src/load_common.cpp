#include <cctype>

#include "bevenv/core/gpu_arch.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/core/outside_text.hpp"
#include "sections.hpp"

namespace bevenv::matrix::detail {

std::vector<const toml::table*> entries_of(const toml::node& node, std::string_view name,
                                           const FileContext& file) {
  std::vector<const toml::table*> out;
  const auto* array = node.as_array();
  if (array == nullptr) {
    file.error(node.source().begin,
               "`" + std::string(name) + "`: expected an array of tables (`[[" + std::string(name) +
                   "]]`), got " + std::string(util::toml_type_name(node.type())));
    return out;
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = *array->get(i);
    if (const auto* table = item.as_table()) {
      out.push_back(table);
    } else {
      file.error(item.source().begin, "`" + std::string(name) + "[" + std::to_string(i) +
                                          "]`: expected a table, got " +
                                          std::string(util::toml_type_name(item.type())));
    }
  }
  return out;
}

namespace {

// `sdist = true` says what the step installs, as `vcs` does: neither takes a `command` or a
// `workdir` (the build runs in no tree of its own), and they exclude each other.
void check_sdist_step(TableReader& reader, bool has_vcs, bool has_command, bool has_workdir) {
  const auto clash = [&](std::string_view key, std::string_view why) {
    reader.file_error(reader.position(key), "`" + reader.context() + "." + std::string(key) +
                                                "`: not with `sdist = true`" + std::string(why));
  };
  if (has_vcs) clash("vcs", " (a step builds the release's sdist or a pinned tree)");
  if (has_command) clash("command", " (pip builds the hash-checked sdist itself)");
  if (has_workdir) clash("workdir", " (the sdist is the source tree)");
}

}  // namespace

std::optional<BuildStep> read_build_step(const toml::table& table, std::string context,
                                         const FileContext& file, bool needs_name) {
  TableReader reader(table, std::move(context), file);
  BuildStep step;
  step.origin = file.origin(reader.position());
  const auto name = reader.string("name", needs_name);
  const auto package = reader.string("package");
  const auto vcs = reader.string("vcs");
  // A package's own step may build its release's sdist; a profile's build has no release.
  const auto sdist = needs_name ? std::nullopt : reader.boolean("sdist");
  const bool from_sdist = sdist.value_or(false);
  const auto command = reader.string("command", !vcs.has_value() && !from_sdist);
  if (vcs && !core::is_vcs_pin(*vcs)) {
    reader.file_error(reader.position("vcs"),
                      "`" + reader.context() +
                          ".vcs`: expected `git+https://HOST/REPO.git@` and a "
                          "40-digit commit, found `" +
                          *vcs + "`");
  }
  if (auto workdir = reader.string("workdir")) step.workdir = std::move(*workdir);
  if (from_sdist)
    check_sdist_step(reader, vcs.has_value(), command.has_value(), !step.workdir.empty());
  if (auto env = reader.string_map("env")) step.env = std::move(*env);
  if (auto note = reader.string("note")) step.note = std::move(*note);
  reader.finish();
  if (!reader.ok() || (!command && !vcs && !from_sdist)) return std::nullopt;
  if (name) step.name = *name;
  if (package) step.package = core::normalize_name(*package);
  if (command) step.command = *command;
  if (vcs) step.vcs = *vcs;
  step.sdist = from_sdist;
  return step;
}

bool is_arch_name(std::string_view text, std::string_view prefix) {
  // The one grammar (core/gpu_arch.hpp), spelled nvcc's way with the prefix the field wants.
  return text.substr(0, prefix.size()) == prefix && text.find('.') == std::string_view::npos &&
         core::parse_gpu_arch(text).has_value();
}

void check_arch_list(TableReader& reader, std::string_view key,
                     const std::vector<std::string>& values, std::string_view prefix) {
  for (const auto& value : values) {
    if (is_arch_name(value, prefix)) continue;
    reader.file_error(reader.position(key), "`" + reader.context() + "." + std::string(key) +
                                                "`: `" + value +
                                                "` is not an architecture; "
                                                "expected `" +
                                                std::string(prefix) +
                                                "` and digits, "
                                                "e.g. `" +
                                                std::string(prefix) + "86`");
  }
}

void read_meta(const toml::node& node, const FileContext& file, std::size_t layer, Collected& out) {
  const auto* table = node.as_table();
  if (table == nullptr) {
    file.error(node.source().begin,
               "`matrix`: expected a table, got " + std::string(util::toml_type_name(node.type())));
    return;
  }
  TableReader reader(*table, "matrix", file);
  MetaRecord meta;
  meta.origin = file.origin(reader.position());
  meta.version = reader.string("version");
  const auto schema = reader.integer("schema", true);
  reader.finish();
  if (schema && *schema != 1) {
    reader.file_error(
        reader.position("schema"),
        "`matrix.schema`: this bevenv reads schema 1, got " + std::to_string(*schema));
    return;
  }
  if (!reader.ok()) return;
  out.meta.push_back({layer, std::move(meta)});
}

bool is_rule_id(std::string_view id) {
  if (id.empty() || std::isalnum(static_cast<unsigned char>(id.front())) == 0) return false;
  for (const char c : id) {
    const bool allowed = (std::islower(static_cast<unsigned char>(c)) != 0) ||
                         (std::isdigit(static_cast<unsigned char>(c)) != 0) || c == '-' || c == '.';
    if (!allowed) return false;
  }
  return true;
}

// `F2` for a field failure, else a rule-like id (`numpy-aliases`): the catalogue's two forms.
bool is_failure_id(std::string_view id) {
  if (is_rule_id(id)) return true;
  if (id.size() < 2 || id.front() != 'F') return false;
  for (std::size_t i = 1; i < id.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(id[i])) == 0) return false;
  }
  return true;
}

std::optional<std::string> read_id(TableReader& reader, bool (*valid)(std::string_view),
                                   std::string_view must_be) {
  auto id = reader.string("id", true);
  if (id && !valid(*id)) {
    reader.file_error(reader.position("id"), "`" + reader.context() + ".id`: `" + *id +
                                                 "` must be " + std::string(must_be));
  }
  return id;
}

bool read_package_conditions(TableReader& reader, const FileContext& file,
                             std::vector<PackageCondition>& out) {
  const toml::table* packages = reader.table("packages");
  if (packages == nullptr) return true;
  const std::string context = reader.context() + ".packages";
  TableReader package_reader(*packages, context, file);
  for (const auto& [key, value] : *packages) {
    const std::string name(key.str());
    const std::string field = context + "." + name;
    if (!core::is_valid_name(name)) {
      package_reader.file_error(key.source().begin,
                                "`" + field + "`: `" + name + "` is not a valid project name");
      continue;
    }
    if (auto specifier = package_reader.parse_specifier(value, field)) {
      out.push_back({core::normalize_name(name), std::move(*specifier)});
    }
  }
  return package_reader.ok();
}

}  // namespace bevenv::matrix::detail
