// Findings as doctor's lines (one per check, a fix under each problem) and as JSON.
#include "doctor_internal.hpp"

namespace bevenv::app::doctor_detail {
namespace {

Mark mark_of(probes::Severity severity) {
  switch (severity) {
    case probes::Severity::ok:
      return Mark::ok;
    case probes::Severity::warning:
      return Mark::warning;
    case probes::Severity::problem:
      return Mark::problem;
  }
  return Mark::problem;
}

std::string plural(std::size_t count, const char* word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

}  // namespace

void render_findings(const std::vector<probes::Finding>& findings, CommandOutput& out) {
  std::size_t problems = 0;
  std::size_t warnings = 0;
  std::size_t shown = 0;
  for (const auto& finding : findings) {
    if (finding.verbose_only) {
      out.add(finding.title, mark_of(finding.severity), 1).verbose_only = true;
      continue;
    }
    ++shown;
    std::string title = finding.title;
    if (!finding.field_failure.empty() &&
        title.find("(" + finding.field_failure) == std::string::npos &&
        title.find(finding.field_failure + " ") == std::string::npos) {
      title += " (" + finding.field_failure + ")";
    }
    out.add(title, mark_of(finding.severity));
    if (finding.severity != probes::Severity::ok && !finding.fix.empty()) {
      out.hint("fix: " + finding.fix, 2);
    }
    if (!finding.detail.empty()) {
      Line& detail = out.add(finding.check + ": " + finding.detail, Mark::none, 2);
      detail.verbose_only = true;
    }
    if (finding.severity == probes::Severity::problem) ++problems;
    if (finding.severity == probes::Severity::warning) ++warnings;
  }
  std::string summary;
  if (findings.empty()) {
    summary = "No check ran.";
  } else if (problems == 0 && warnings == 0) {
    summary = "No problems: " + plural(shown, "check") + " passed.";
  } else {
    summary = plural(problems, "problem") + ", " + plural(warnings, "warning") + ".";
  }
  out.add(summary + " Details: `bevenv doctor -v` · JSON: `bevenv doctor --json`");
  if (problems > 0) out.exit_code = core::ExitCode::problem_found;
  out.json["summary"] = {
      {"problems", problems}, {"warnings", warnings}, {"ok", shown - problems - warnings}};
}

json findings_json(const std::vector<probes::Finding>& findings) {
  json checks = json::array();
  for (const auto& finding : findings) {
    checks.push_back(
        {{"id", finding.check},
         {"severity", std::string(probes::to_string(finding.severity))},
         {"title", finding.title},
         {"fix", finding.fix.empty() ? json(nullptr) : json(finding.fix)},
         {"failure", finding.field_failure.empty() ? json(nullptr) : json(finding.field_failure)},
         {"facts", probes::facts_json(finding)},
         {"detail", finding.detail.empty() ? json(nullptr) : json(finding.detail)}});
  }
  return checks;
}

}  // namespace bevenv::app::doctor_detail
