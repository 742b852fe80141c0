#include <set>

#include "bevenv/app/matrix_commands.hpp"
#include "bevenv/core/closest.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/util/text.hpp"
#include "matrix_text.hpp"

namespace bevenv::app {
namespace {

// The ids of the failures some rule prevents, sorted.
std::vector<std::string> failures_with_rules(const matrix::Matrix& m) {
  std::set<std::string> ids;
  for (const auto& rule : m.rules) {
    if (!rule.failure.empty()) ids.insert(rule.failure);
  }
  return {ids.begin(), ids.end()};
}

// `--failure` names no failure of the catalogue: bad input, not an empty list.
[[noreturn]] void unknown_failure(const matrix::Matrix& m, const std::string& id) {
  std::vector<std::string> ids;
  for (const auto& failure : m.failures) ids.push_back(failure.id);
  const std::string near = core::closest(id, ids);
  throw core::Error(core::ExitCode::bad_input, "unknown failure `" + id + "`",
                    near.empty()
                        ? "failures with a rule: " + util::join(failures_with_rules(m), ", ")
                        : "did you mean `" + near + "`?");
}

}  // namespace

CommandOutput matrix_rules(const MatrixRulesOptions& options) {
  const matrix::Matrix m = load_matrix_or_throw(options.matrix);
  if (!options.failure.empty() && m.find_failure(options.failure) == nullptr)
    unknown_failure(m, options.failure);
  CommandOutput out;
  nlohmann::json rules = nlohmann::json::array();
  std::size_t shown = 0;
  for (const auto& rule : m.rules) {
    if (!options.failure.empty() && rule.failure != options.failure) continue;
    ++shown;
    const std::string failure = rule.failure.empty() ? "" : ", " + rule.failure;
    out.add("`" + rule.id + "` (" + std::string(matrix::rule_kind_name(rule.kind)) + failure +
                "): " + rule.message,
            rule.kind == matrix::RuleKind::prefer ? Mark::info : Mark::warning);
    out.add("when " + matrix_text::describe_when(rule) + " -> " + matrix_text::describe_then(rule),
            Mark::none, 1);
    if (!rule.symptom.empty()) out.add("symptom: " + rule.symptom, Mark::none, 1);
    out.hint("fix: " + rule.fix);
    if (!rule.note.empty()) out.add("note: " + rule.note, Mark::none, 1).verbose_only = true;
    out.add("sources: " + util::join(rule.sources, "; "), Mark::none, 1);
    rules.push_back({{"id", rule.id},
                     {"kind", matrix::rule_kind_name(rule.kind)},
                     {"failure", rule.failure},
                     {"when", matrix_text::describe_when(rule)},
                     {"then", rule.then.to_string()},
                     {"message", rule.message},
                     {"symptom", rule.symptom},
                     {"fix", rule.fix},
                     {"note", rule.note},
                     {"sources", rule.sources},
                     {"origin", rule.origin.to_string()},
                     {"layer", matrix::layer_name(rule.origin.layer)}});
  }
  const std::vector<std::string> covered = failures_with_rules(m);
  out.add(std::to_string(shown) + " rules; field failures with a rule: " +
          (covered.empty() ? "none" : util::join(covered, ", ")));
  out.json["matrix_version"] = m.version;
  out.json["rules"] = rules;
  out.json["failures_covered"] = covered;
  return out;
}

}  // namespace bevenv::app
