#include "bevenv/core/name.hpp"
#include "model_words.hpp"
#include "sections.hpp"
#include "source_ref.hpp"

namespace bevenv::matrix::detail {
namespace {

void read_train(const toml::table& table, const FileContext& file, RawProfile& profile) {
  TableReader reader(table, "profile.train", file);
  profile.train_gpu_memory_gib = reader.number("gpu_memory_gib");
  if (profile.train_gpu_memory_gib && *profile.train_gpu_memory_gib <= 0) {
    reader.file_error(reader.position("gpu_memory_gib"),
                      "`profile.train.gpu_memory_gib`: expected a positive number");
  }
  if (auto basis = reader.choice("memory_basis", kMemoryBasisWords)) profile.memory_basis = *basis;
  profile.dataloader_workers_per_gpu = reader.integer("workers_per_gpu");
  if (profile.dataloader_workers_per_gpu && *profile.dataloader_workers_per_gpu < 0) {
    reader.file_error(reader.position("workers_per_gpu"),
                      "`profile.train.workers_per_gpu`: expected zero or more");
  }
  reader.finish();
}

void read_no_ports(TableReader& reader, const FileContext& file, const std::string& name,
                   Profile& profile) {
  for (const toml::table* entry : reader.tables("no_port")) {
    TableReader no_port(*entry, "profile.no_port", file);
    NoPort out;
    out.origin = file.origin(no_port.position());
    if (auto gpus = no_port.strings("gpus", true)) {
      check_arch_list(no_port, "gpus", *gpus, "sm_");
      out.gpus = std::move(*gpus);
    }
    if (auto reason = no_port.string("reason", true)) out.reason = std::move(*reason);
    if (auto sources = no_port.strings("sources", true)) {
      check_sources(no_port, "sources", name);
      out.sources = std::move(*sources);
    }
    no_port.finish();
    profile.no_ports.push_back(std::move(out));
  }
}

void read_port_fields(TableReader& reader, const FileContext& file, const std::string& name,
                      Profile& profile) {
  if (auto port_of = reader.string("port_of")) profile.port_of = std::move(*port_of);
  if (auto changes = reader.strings("changes")) profile.changes = std::move(*changes);
  if (auto caveats = reader.strings("caveats")) profile.caveats = std::move(*caveats);
  if (auto lifts = reader.strings("lifts")) profile.lifts = std::move(*lifts);
  read_no_ports(reader, file, name, profile);
}

}  // namespace

std::optional<RawProfile> read_profile(TableReader& reader, const FileContext& file) {
  RawProfile raw;
  raw.own.origin = file.origin(reader.position());
  auto name = reader.string("name", true);
  if (auto extends = reader.string("extends")) {
    raw.own.extends = std::move(*extends);
    raw.extends_at = reader.position("extends");
  }
  raw.summary = reader.string("summary");
  raw.python = reader.string("python");
  raw.cuda = reader.string("cuda");
  raw.base_image = reader.string("base_image");
  raw.own.requirements = reader.requirements("requires");
  raw.own.preferred = reader.requirements("prefer");
  if (auto indexes = reader.strings("indexes")) raw.own.indexes = std::move(*indexes);
  if (auto links = reader.strings("find_links")) raw.own.find_links = std::move(*links);
  if (auto env = reader.string_map("env")) raw.own.env = std::move(*env);
  for (const toml::table* build : reader.tables("build")) {
    if (auto step = read_build_step(*build, "profile.build", file, true)) {
      raw.own.builds.push_back(std::move(*step));
    }
  }
  if (const toml::table* train = reader.table("train")) read_train(*train, file, raw);
  raw.offline = reader.boolean("offline");
  read_port_fields(reader, file, name ? *name : std::string(), raw.own);
  if (auto sources = reader.strings("sources", true)) {
    check_sources(reader, "sources", name ? *name : "");
    raw.own.sources = std::move(*sources);
  }
  reader.finish();
  if (!name) return std::nullopt;
  raw.own.name = *name;
  return raw;
}

}  // namespace bevenv::matrix::detail
