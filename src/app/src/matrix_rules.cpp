#include <set>

#include "bevenv/app/matrix_commands.hpp"
#include "matrix_text.hpp"
#include "bevenv/util/text.hpp"

namespace bevenv::app {

CommandOutput matrix_rules(const MatrixRulesOptions& options) {
  const matrix::Matrix m = load_matrix_or_throw(options.matrix);
  CommandOutput out;
  nlohmann::json rules = nlohmann::json::array();
  std::set<std::string> failures;
  std::size_t shown = 0;
  for (const auto& rule : m.rules) {
    if (!rule.failure.empty()) failures.insert(rule.failure);
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
  const std::vector<std::string> covered(failures.begin(), failures.end());
  out.add(std::to_string(shown) + " rules; field failures with a rule: " +
          (covered.empty() ? "none" : util::join(covered, ", ")));
  out.json["matrix_version"] = m.version;
  out.json["rules"] = rules;
  out.json["failures_covered"] = covered;
  return out;
}

}  // namespace bevenv::app
