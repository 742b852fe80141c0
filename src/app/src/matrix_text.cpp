#include "matrix_text.hpp"

#include "bevenv/util/text.hpp"

namespace bevenv::app::matrix_text {

std::string describe_when(const matrix::Rule& rule) {
  std::vector<std::string> parts;
  for (const auto& condition : rule.when_packages) {
    const std::string spec = condition.specifier.to_string();
    parts.push_back("`" + condition.name + (spec.empty() ? "` (any version)" : spec + "`"));
  }
  const auto& target = rule.when_target;
  if (target.python) parts.push_back("python `" + target.python->to_string() + "`");
  if (target.cuda_driver) parts.push_back("driver `" + target.cuda_driver->to_string() + "`");
  if (!target.gpu_arch.empty()) parts.push_back("GPU " + util::join(target.gpu_arch, "/"));
  if (!target.platform.empty()) parts.push_back("platform " + util::join(target.platform, "/"));
  if (!rule.when_profiles.empty())
    parts.push_back("profile " + util::join(rule.when_profiles, "/"));
  return util::join(parts, ", ");
}

std::string describe_then(const matrix::Rule& rule) {
  return std::string(matrix::rule_kind_name(rule.kind)) + " `" + rule.then.to_string() + "`";
}

}  // namespace bevenv::app::matrix_text
