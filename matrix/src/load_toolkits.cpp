#include "sections.hpp"
#include "source_ref.hpp"

namespace bevenv::matrix::detail {

std::optional<Toolkit> read_toolkit(TableReader& reader, const FileContext& file) {
  Toolkit toolkit;
  toolkit.origin = file.origin(reader.position());
  auto version = reader.version("version", true);
  auto min_driver = reader.version("min_driver", true);
  toolkit.minor_compat_driver = reader.version("minor_compat_driver");
  if (auto sm = reader.strings("sm", true)) {
    check_arch_list(reader, "sm", *sm, "sm_");
    toolkit.sm = std::move(*sm);
  }
  if (auto images = reader.strings("images")) toolkit.images = std::move(*images);
  auto sources = reader.strings("sources", true);
  if (sources) check_sources(reader, "sources", version ? version->to_string() : "");
  reader.finish();
  if (!reader.ok() || !version || !min_driver || !sources) return std::nullopt;
  toolkit.version = std::move(*version);
  toolkit.min_driver = std::move(*min_driver);
  toolkit.sources = std::move(*sources);
  return toolkit;
}

std::optional<Observed> read_observation(TableReader& reader, const FileContext& file) {
  static const std::vector<std::string> outcomes = {"ok", "fail"};
  Observed record;
  record.origin = observation_origin(reader, file);
  auto host = reader.string("host", true);
  auto date = reader.string("date", true);
  auto package = reader.string("package", true);
  auto version = reader.version("version", true);
  if (auto target = reader.string_map("target")) record.target = std::move(*target);
  auto outcome = reader.choice("outcome", outcomes, "");
  if (!reader.has("outcome")) {
    reader.file_error(reader.position(),
                      "`observed`: missing required key `outcome` (`ok` or `fail`)");
  }
  auto check = reader.string("check", true);
  if (auto detail = reader.string("detail")) record.detail = std::move(*detail);
  reader.finish();
  if (!reader.ok() || !host || !date || !package || !version || !outcome || !check)
    return std::nullopt;
  record.host = std::move(*host);
  record.date = std::move(*date);
  record.package = std::move(*package);
  record.version = std::move(*version);
  record.outcome = *outcome == "ok" ? Outcome::ok : Outcome::fail;
  record.check = std::move(*check);
  return record;
}

}  // namespace bevenv::matrix::detail
