#include "model_words.hpp"
#include "sections.hpp"
#include "source_ref.hpp"

namespace bevenv::matrix::detail {
namespace {

// False when a condition could not be read (already reported).
bool read_when(const toml::table& table, const FileContext& file, Rule& rule) {
  TableReader reader(table, "rule.when", file);
  const bool packages_ok = read_package_conditions(reader, file, rule.when_packages);
  rule.when_target.python = reader.specifier("python");
  rule.when_target.cuda_driver = reader.specifier("cuda_driver");
  if (auto archs = reader.strings("gpu_arch")) {
    check_arch_list(reader, "gpu_arch", *archs, "sm_");
    rule.when_target.gpu_arch = std::move(*archs);
  }
  if (auto platforms = reader.strings("platform")) rule.when_target.platform = *platforms;
  if (auto profiles = reader.strings("profiles")) rule.when_profiles = *profiles;
  reader.finish();
  if (!reader.ok() || !packages_ok) return false;
  if (rule.when_packages.empty() && rule.when_target.empty() && rule.when_profiles.empty()) {
    reader.file_error(reader.position(),
                      "`rule.when`: needs at least one condition (`packages`, `python`, "
                      "`cuda_driver`, `gpu_arch`, `platform` or `profiles`)");
    return false;
  }
  return true;
}

}  // namespace

std::optional<Rule> read_rule(TableReader& reader, const FileContext& file) {
  Rule rule;
  rule.origin = file.origin(reader.position());
  const auto id = read_id(reader, is_rule_id, "lower-case letters, digits, `-` or `.`");
  const auto kind = reader.choice("kind", kRuleKindWords);
  if (!reader.has("kind")) {
    reader.file_error(reader.position(),
                      "`rule`: missing required key `kind` (one of "
                      "`requires`, `conflicts`, `prefer`)");
  }
  bool when_ok = false;
  if (const toml::table* when = reader.table("when", true)) when_ok = read_when(*when, file, rule);
  auto then = reader.requirement("then", true);
  if (then && !then->marker.empty()) {
    reader.file_error(reader.position("then"),
                      "`rule.then`: a marker is not allowed here; use `when` conditions");
  }
  if (then && !then->url.empty()) {
    reader.file_error(reader.position("then"), "`rule.then`: a URL is not allowed here");
  }
  const auto message = reader.string("message", true);
  if (auto symptom = reader.string("symptom")) rule.symptom = std::move(*symptom);
  // Optional where `failure` names a catalogue entry: its fixes are the one place they live.
  const auto fix = reader.string("fix", !reader.has("failure"));
  if (auto failure = reader.string("failure")) {
    if (!is_failure_id(*failure)) {
      reader.file_error(reader.position("failure"),
                        "`rule.failure`: expected a failure id of "
                        "matrix/data/failures.toml such as `F2` or `numpy-aliases`, got `" +
                            *failure + "`");
    }
    rule.failure = std::move(*failure);
  }
  if (auto note = reader.string("note")) rule.note = std::move(*note);
  auto sources = read_sources(reader, id ? *id : "");
  reader.finish();
  if (!reader.ok() || !when_ok || !id || !kind || !then || !message || !sources)
    return std::nullopt;
  rule.id = *id;
  rule.kind = *kind;
  rule.then = std::move(*then);
  rule.message = *message;
  rule.fix = fix.value_or("");
  rule.sources = std::move(*sources);
  return rule;
}

}  // namespace bevenv::matrix::detail
