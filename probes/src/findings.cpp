#include "bevenv/probes/findings.hpp"

#include <algorithm>
#include <cstdio>

#include "bevenv/util/enum_words.hpp"
#include "rules.hpp"

namespace bevenv::probes {

namespace {

constexpr util::EnumWord<Severity> kSeverities[] = {
    {Severity::ok, "ok"}, {Severity::warning, "warning"}, {Severity::problem, "problem"}};

}  // namespace

std::string_view to_string(Severity severity) {
  return util::word_of(kSeverities, severity, "problem");
}

nlohmann::json facts_json(const Finding& finding) {
  nlohmann::json facts = nlohmann::json::object();
  for (const auto& [name, value] : finding.facts) facts[name] = value;
  return facts;
}

nlohmann::json to_json(const Finding& finding) {
  nlohmann::json out{{"check", finding.check},
                     {"severity", std::string(to_string(finding.severity))},
                     {"title", finding.title}};
  if (!finding.fix.empty()) out["fix"] = finding.fix;
  if (!finding.detail.empty()) out["detail"] = finding.detail;
  if (!finding.field_failure.empty()) out["field_failure"] = finding.field_failure;
  if (!finding.facts.empty()) out["facts"] = facts_json(finding);
  return out;
}

std::vector<Finding> evaluate(const nlohmann::json& report, const Expectations& expectations) {
  std::vector<Finding> out;
  if (!report.is_object()) {
    out.push_back(make_finding("report", Severity::problem, "the probe report is not a JSON object",
                               "rerun `bevenv-probe` and check its stderr"));  // bevenv's own
    return out;
  }
  rules::gpu_findings(report, expectations, out);
  rules::host_findings(report, expectations, out);
  rules::python_findings(report, out);
  return out;
}

namespace rules {

std::string status_of(const json& report, const char* section) {
  if (!report.contains(section) || !report[section].is_object()) return "";
  return report[section].value("status", "");
}

int leading_number(std::string_view digits) {
  // Saturates: a version such as 99999999999.0 in a hand-edited report must not throw.
  constexpr int kMax = 1'000'000;
  int value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') break;
    value = std::min(kMax, value * 10 + (c - '0'));
  }
  return value;
}

std::pair<int, int> major_minor(const std::string& version) {
  int parts[2] = {0, 0};
  std::size_t at = 0;
  for (int& part : parts) {
    std::size_t end = at;
    while (end < version.size() && version[end] >= '0' && version[end] <= '9') ++end;
    if (end == at) break;
    part = leading_number(std::string_view(version).substr(at, end - at));
    if (end >= version.size() || version[end] != '.') break;
    at = end + 1;
  }
  return {parts[0], parts[1]};
}

std::string gib_text(double bytes) {
  const double gib = bytes / (1024.0 * 1024.0 * 1024.0);
  char text[32];
  if (gib >= 10) {
    std::snprintf(text, sizeof text, "%.0f GiB", gib);
  } else if (gib >= 1) {
    std::snprintf(text, sizeof text, "%.1f GiB", gib);
  } else {
    std::snprintf(text, sizeof text, "%.0f MiB", gib * 1024.0);
  }
  return text;
}

}  // namespace rules

Finding make_finding(std::string check, Severity severity, std::string title, std::string fix,
                     std::string field_failure, std::string detail) {
  Finding finding;
  finding.check = std::move(check);
  finding.severity = severity;
  finding.title = std::move(title);
  finding.fix = std::move(fix);
  finding.field_failure = std::move(field_failure);
  finding.detail = std::move(detail);
  return finding;
}

Finding failure_finding(std::string check, Severity severity, std::string title,
                        std::string failure, std::vector<std::pair<std::string, std::string>> facts,
                        std::string detail) {
  Finding finding = make_finding(std::move(check), severity, std::move(title), {},
                                 std::move(failure), std::move(detail));
  finding.facts = std::move(facts);
  return finding;
}

}  // namespace bevenv::probes
