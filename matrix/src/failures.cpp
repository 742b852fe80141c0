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

std::string FailureFix::render(
    const std::vector<std::pair<std::string, std::string>>& facts) const {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('{', at);
    const std::size_t close = open == std::string::npos ? open : text.find('}', open);
    if (close == std::string::npos) break;
    const std::string_view name(text.data() + open + 1, close - open - 1);
    const auto fact = std::find_if(facts.begin(), facts.end(),
                                   [&](const auto& entry) { return entry.first == name; });
    out.append(text, at, open - at);
    if (fact != facts.end()) {
      out += fact->second;
    } else {
      out.append(text, open, close - open + 1);
    }
    at = close + 1;
  }
  out.append(text, std::min(at, text.size()), std::string::npos);
  return out;
}

bool FailureFix::has_facts(const std::vector<std::pair<std::string, std::string>>& facts) const {
  for (std::size_t open = text.find('{'); open != std::string::npos;
       open = text.find('{', open + 1)) {
    const std::size_t close = text.find('}', open);
    if (close == std::string::npos) return true;
    const std::string_view name(text.data() + open + 1, close - open - 1);
    const bool known = std::any_of(facts.begin(), facts.end(), [&](const auto& entry) {
      return entry.first == name && !entry.second.empty();
    });
    if (!known) return false;
  }
  return true;
}

const Failure* Matrix::find_failure(std::string_view id) const {
  auto it = std::lower_bound(
      failures.begin(), failures.end(), id,
      [](const Failure& failure, std::string_view key) { return failure.id < key; });
  return it != failures.end() && it->id == id ? &*it : nullptr;
}

}  // namespace bevenv::matrix
