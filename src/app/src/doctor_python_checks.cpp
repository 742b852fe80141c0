// The Python probe's checks in the matrix's words: bevenv_probes reports what each check
// observed (pass or fail, with evidence); the failure catalogue (matrix/data/failures.toml) says
// what that means for the installed package, whether it can bite in this environment at all,
// and the fix that fits it.
#include <algorithm>

#include "bevenv/core/name.hpp"
#include "doctor_internal.hpp"

namespace bevenv::app::doctor_detail {
namespace {

using probes::Severity;

const matrix::Failure* failure_of_check(const matrix::Matrix& matrix, const std::string& check) {
  const matrix::Failure* failure = matrix.find_failure(check);
  return failure != nullptr && failure->check ? failure : nullptr;
}

// `F2`: a field failure's id, which findings carry as `field_failure`; rule-like ids do not.
bool is_field_failure_id(const std::string& id) {
  return id.size() >= 2 && id.front() == 'F' &&
         std::all_of(id.begin() + 1, id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

matrix::FixContext fix_context(const json& report) {
  matrix::FixContext context;
  if (section_if_ok(report, "python").empty()) return context;
  context.python = parse_version(interpreter_version(report));
  for (const auto& [name, text] : installed_versions(report)) {
    if (auto version = parse_version(text)) context.packages.emplace(name, *version);
  }
  context.packages_known = true;
  return context;
}

void word_python_checks(const json& report, const matrix::Matrix* matrix,
                        std::vector<probes::Finding>& findings) {
  if (matrix == nullptr) return;
  const matrix::FixContext context = fix_context(report);
  const auto installed = installed_versions(report);
  std::vector<probes::Finding> out;
  out.reserve(findings.size());
  for (auto& finding : findings) {
    const matrix::Failure* failure = failure_of_check(*matrix, finding.check);
    if (failure == nullptr) {
      out.push_back(std::move(finding));  // not a Python check: word_failures() words it
      continue;
    }
    // Where the failure cannot happen (F2 without a torch <1.11), the observation is no finding:
    // neither a warning to read nor a verdict for `--record` to store.
    if (!failure->can_happen(context)) continue;
    const matrix::FailureCheck& check = *failure->check;
    const auto version = installed.find(check.package);
    const std::string subject =
        check.package + (version == installed.end() ? "" : " " + version->second) + " ";
    const bool failed = finding.severity != Severity::ok;
    finding.title = subject + (failed ? check.problem : check.ok);
    if (failed) {
      finding.severity = check.warning ? Severity::warning : Severity::problem;
      const matrix::FailureFix* fix = failure->fix_for(context);
      finding.fix = fix != nullptr ? fix->text : "";
      if (is_field_failure_id(failure->id)) finding.field_failure = failure->id;
    }
    out.push_back(std::move(finding));
  }
  findings = std::move(out);
}

}  // namespace bevenv::app::doctor_detail
