// The failure catalogue's lookups: which fix fits an environment, and the catalogue by id.
#include <algorithm>

#include "bevenv/matrix/model.hpp"

namespace bevenv::matrix {

bool FixContext::holds(const EnvCondition& condition) const {
  if (!condition.checks.empty() && std::find(condition.checks.begin(), condition.checks.end(),
                                             check) == condition.checks.end()) {
    return false;
  }
  if (condition.container && (!container || *container != *condition.container)) return false;
  if (condition.python && python && !condition.python->contains(*python, true)) return false;
  for (const PackageCondition& package : condition.packages) {
    const auto installed = packages.find(package.name);
    if (installed == packages.end()) {
      // Not installed is a fact only where the installed set is known.
      if (packages_known) return false;
      continue;
    }
    if (!package.matches(installed->second)) return false;
  }
  return true;
}

bool Failure::can_happen(const FixContext& context) const {
  if (!context.holds(applies)) return false;
  return applies_any.empty() ||
         std::any_of(applies_any.begin(), applies_any.end(),
                     [&context](const EnvCondition& c) { return context.holds(c); });
}

const FailureFix* Failure::fix_for(const FixContext& context) const {
  for (const FailureFix& fix : fixes) {
    if (context.holds(fix.when) && fix.has_facts(context.facts)) return &fix;
  }
  return nullptr;
}

std::optional<std::vector<Placeholder>> placeholders_of(std::string_view text) {
  std::vector<Placeholder> out;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '}') return std::nullopt;  // a closing brace that opened nothing
    if (text[at] != '{') continue;
    const std::size_t close = text.find('}', at);
    if (close == std::string_view::npos || close == at + 1) return std::nullopt;
    const std::string_view name = text.substr(at + 1, close - at - 1);
    const bool named = std::all_of(name.begin(), name.end(),
                                   [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
    if (!named) return std::nullopt;
    out.push_back({at, close - at + 1, name});
    at = close;
  }
  return out;
}

namespace {

const std::string* fact_value(const std::vector<std::pair<std::string, std::string>>& facts,
                              std::string_view name) {
  const auto fact = std::find_if(facts.begin(), facts.end(),
                                 [&](const auto& entry) { return entry.first == name; });
  return fact == facts.end() ? nullptr : &fact->second;
}

}  // namespace

std::string FailureFix::render(
    const std::vector<std::pair<std::string, std::string>>& facts) const {
  const auto spans = placeholders_of(text);
  if (!spans) return text;  // the loader refuses such a text; shown as written
  std::string out;
  std::size_t at = 0;
  for (const Placeholder& span : *spans) {
    out.append(text, at, span.offset - at);
    const std::string* value = fact_value(facts, span.name);
    out += value != nullptr ? *value : text.substr(span.offset, span.length);
    at = span.offset + span.length;
  }
  out.append(text, at, std::string::npos);
  return out;
}

bool FailureFix::has_facts(const std::vector<std::pair<std::string, std::string>>& facts) const {
  const auto spans = placeholders_of(text);
  if (!spans) return true;
  return std::all_of(spans->begin(), spans->end(), [&](const Placeholder& span) {
    const std::string* value = fact_value(facts, span.name);
    return value != nullptr && !value->empty();
  });
}

std::string Failure::fitting_fix_text(const FixContext& context) const {
  const FailureFix* fix = fix_for(context);
  return fix != nullptr ? fix->render(context.facts) : std::string();
}

const Failure* Matrix::find_failure(std::string_view id) const {
  auto it = std::lower_bound(
      failures.begin(), failures.end(), id,
      [](const Failure& failure, std::string_view key) { return failure.id < key; });
  return it != failures.end() && it->id == id ? &*it : nullptr;
}

}  // namespace bevenv::matrix
