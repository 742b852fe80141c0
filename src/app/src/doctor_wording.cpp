// The fixes of doctor's findings, in the matrix's words: a finding says what it observed and
// which catalogued failure it is (`F10`, `gpu-xid`) with the facts it saw (`{sm}`); the failure
// catalogue (matrix/data/failures.toml) holds the fix for that check and host, and the text a
// user sees when it bites. Where the evidence names a failure the catalogue recognises (an error
// name such as `CUDA_ERROR_STUB_LIBRARY`), that failure speaks instead of the probe's guess.
#include <regex>

#include "doctor_internal.hpp"

namespace bevenv::app::doctor_detail {
namespace {

using probes::Severity;

bool pattern_matches(const matrix::LogSignature& signature, const std::string& text) {
  if (!signature.literal.empty() && text.find(signature.literal) == std::string::npos) {
    return false;
  }
  // The loader refused regexes that do not compile; only those behind a found literal, or
  // standing alone, are compiled here.
  return signature.regex.empty() || std::regex_search(text, std::regex(signature.regex));
}

// The catalogued failure the evidence names, when one of its patterns is in it.
const matrix::Failure* recognised(const matrix::Matrix& matrix, const std::string& evidence) {
  if (evidence.empty()) return nullptr;
  for (const auto& failure : matrix.failures) {
    for (const auto& signature : failure.patterns) {
      if (pattern_matches(signature, evidence)) return &failure;
    }
  }
  return nullptr;
}

bool in_container(const json& report) {
  const json& host = section_if_ok(report, "host");
  return host.value("container", json::object()).value("detected", false);
}

// The error text a user sees, quoted after the finding unless the title says it already.
void quote_symptom(const matrix::Failure& failure, probes::Finding& finding) {
  if (failure.symptom.empty() || finding.title.find(failure.symptom) != std::string::npos) return;
  finding.title += " (\"" + failure.symptom + "\")";
}

}  // namespace

void word_failures(const json& report, const matrix::Matrix* matrix,
                   std::vector<probes::Finding>& findings) {
  if (matrix == nullptr) return;
  matrix::FixContext context = fix_context(report);
  if (!section_if_ok(report, "host").empty()) context.container = in_container(report);
  for (auto& finding : findings) {
    if (finding.severity == Severity::ok || !finding.fix.empty()) continue;
    const matrix::Failure* failure = recognised(*matrix, finding.detail);
    if (failure == nullptr) failure = matrix->find_failure(finding.field_failure);
    if (failure == nullptr) continue;
    finding.field_failure = failure->id;
    context.check = finding.check;
    context.facts = finding.facts;
    finding.fix = failure->fitting_fix_text(context);
    quote_symptom(*failure, finding);
  }
}

}  // namespace bevenv::app::doctor_detail
