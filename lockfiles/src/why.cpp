#include "bevenv/lockfiles/why.hpp"

#include <algorithm>

#include "bevenv/core/name.hpp"

namespace bevenv::lockfiles {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0U : 1U)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The lockfile name closest to `wanted`: a small edit away, or one containing the other
// (`mmcv` -> `mmcv-full`).
std::optional<std::string> closest_name(const Lockfile& lock, const std::string& wanted) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const Package& p : lock.packages) {
    const std::string candidate = core::normalize_name(p.name);
    const std::size_t distance = edit_distance(wanted, candidate);
    const bool close = distance <= std::max<std::size_t>(2, wanted.size() / 3) ||
                       candidate.find(wanted) != std::string::npos ||
                       wanted.find(candidate) != std::string::npos;
    if (close && (!best || distance < best_distance)) {
      best = p.name;
      best_distance = distance;
    }
  }
  return best;
}

std::string version_of(const Lockfile& lock, const std::string& name) {
  const Package* p = lock.find_package(name);
  return p == nullptr ? name : p->name + " " + p->version;
}

void explain_rule(const Lockfile& lock, const Reason& r, std::vector<ExplainLine>& out) {
  const AppliedRule* rule = r.rule_id ? lock.find_rule(*r.rule_id) : nullptr;
  std::string line = r.text;
  if (r.rule_id) line += " by rule `" + *r.rule_id + "`";
  if (rule != nullptr && !rule->failure.empty()) line += " (" + rule->failure + ")";
  const std::optional<std::string> source =
      r.source ? r.source : (rule != nullptr ? std::optional(rule->source) : std::nullopt);
  const bool details = (rule != nullptr && rule->symptom) || source;
  out.push_back({1, line + (details ? ":" : "")});
  if (rule != nullptr && rule->symptom) out.push_back({2, "symptom: " + *rule->symptom});
  if (source) out.push_back({2, "source:  " + *source});
}

void explain_reason(const Lockfile& lock, const Reason& r, std::vector<ExplainLine>& out) {
  switch (r.kind) {
    case ReasonKind::rule:
      explain_rule(lock, r, out);
      return;
    case ReasonKind::requested:
      out.push_back({1, "requested by " + r.text});
      break;
    case ReasonKind::required_by:
      out.push_back(
          {1, "required by " + version_of(lock, r.package.value_or("")) + " (" + r.text + ")"});
      break;
    case ReasonKind::preferred:
      out.push_back({1, "preferred: " + r.text});
      break;
    case ReasonKind::observed:
      out.push_back({1, "observed: " + r.text});
      break;
    case ReasonKind::target:
      out.push_back({1, "target: " + r.text});
      break;
  }
  if (r.source) out.push_back({2, "source:  " + *r.source});
}

}  // namespace

core::Expected<std::vector<ExplainLine>, PackageNotFound> explain_package(const Lockfile& lock,
                                                                          std::string_view name) {
  const Package* p = lock.find_package(name);
  if (p == nullptr) {
    PackageNotFound error;
    error.message = "`" + std::string(name) + "` is not in the lockfile";
    error.suggestion = closest_name(lock, core::normalize_name(name));
    error.hint =
        error.suggestion
            ? "did you mean `" + *error.suggestion + "`? (`bevenv why " + *error.suggestion + "`)"
            : "the lockfile pins " + std::to_string(lock.packages.size()) +
                  " packages; list them with `bevenv export --format requirements`";
    return core::unexpected(std::move(error));
  }
  std::vector<ExplainLine> out;
  out.push_back({0, p->name + " " + p->version});
  for (const Reason& r : p->why) explain_reason(lock, r, out);

  // Dependents the recorded reasons do not already name: the edges still explain the pin.
  std::vector<std::string> others;
  const std::string self = core::normalize_name(p->name);
  for (const Package& q : lock.packages) {
    const bool depends =
        std::any_of(q.dependencies.begin(), q.dependencies.end(),
                    [&](const std::string& d) { return core::normalize_name(d) == self; });
    const bool named = std::any_of(p->why.begin(), p->why.end(), [&](const Reason& r) {
      return r.package && core::normalize_name(*r.package) == core::normalize_name(q.name);
    });
    if (depends && !named) others.push_back(q.name + " " + q.version);
  }
  if (!others.empty()) {
    std::string line = "also a dependency of ";
    for (std::size_t i = 0; i < others.size(); ++i) line += (i > 0 ? ", " : "") + others[i];
    out.push_back({1, line});
  }
  std::string from = "from " + std::string(to_string(p->source.kind)) + " " + p->source.url;
  if (!p->variant.empty()) from += " (variant " + p->variant + ")";
  out.push_back({1, from});
  return out;
}

std::string to_text(const std::vector<ExplainLine>& lines) {
  std::string out;
  for (const ExplainLine& line : lines)
    out +=
        std::string(static_cast<std::size_t>(std::max(0, line.indent)) * 2, ' ') + line.text + "\n";
  return out;
}

}  // namespace bevenv::lockfiles
