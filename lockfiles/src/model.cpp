#include "bevenv/lockfiles/model.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "bevenv/core/name.hpp"
#include "bevenv/util/enum_words.hpp"

namespace bevenv::lockfiles {
namespace {

constexpr util::EnumWord<SourceKind> kSourceKinds[] = {
    {SourceKind::index, "index"},
    {SourceKind::find_links, "find-links"},
    {SourceKind::path, "path"},
    {SourceKind::pypi, "pypi"},
};

constexpr util::EnumWord<ReasonKind> kReasonKinds[] = {
    {ReasonKind::requested, "requested"}, {ReasonKind::required_by, "required-by"},
    {ReasonKind::rule, "rule"},           {ReasonKind::preferred, "preferred"},
    {ReasonKind::observed, "observed"},   {ReasonKind::target, "target"},
};

// `sm_86` -> (86, ""), `sm_90a` -> (90, "a"): sorting by number keeps sm_100 after sm_90.
std::pair<unsigned long, std::string_view> gpu_key(std::string_view gpu) {
  std::string_view digits = gpu.substr(std::min<std::size_t>(3, gpu.size()));
  unsigned long number = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (ec != std::errc{}) return {0, gpu};
  return {number, digits.substr(static_cast<std::size_t>(end - digits.data()))};
}

// The name as sorted: its normalized form, made only where that differs from the name.
std::string_view normalized(std::string_view name, std::string& made) {
  if (core::is_normalized_name(name)) return name;
  made = core::normalize_name(name);
  return made;
}

// Whether `items` are in the order sort_by_normalized_name() gives them.
template <class T, class NameOf>
bool in_normalized_order(const std::vector<T>& items, NameOf name_of) {
  std::string made[2];
  for (std::size_t i = 1; i < items.size(); ++i) {
    const std::string_view before = normalized(name_of(items[i - 1]), made[0]);
    const std::string_view after = normalized(name_of(items[i]), made[1]);
    if (before != after ? after < before : name_of(items[i]) < name_of(items[i - 1])) return false;
  }
  return true;
}

// By normalized name, then as written: each name is normalized once, not at every comparison.
// A lock is canonicalized when it is built and again when it is written: items already in
// order are left where they are.
template <class T, class NameOf>
void sort_by_normalized_name(std::vector<T>& items, NameOf name_of) {
  if (in_normalized_order(items, name_of)) return;
  std::vector<std::pair<std::string, T>> keyed;
  keyed.reserve(items.size());
  for (T& item : items) keyed.emplace_back(core::normalize_name(name_of(item)), std::move(item));
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return name_of(a.second) < name_of(b.second);
  });
  items.clear();
  for (auto& entry : keyed) items.push_back(std::move(entry.second));
}

void sort_names(std::vector<std::string>& names) {
  sort_by_normalized_name(names,
                          [](const std::string& name) -> const std::string& { return name; });
  names.erase(std::unique(names.begin(), names.end()), names.end());
}

bool names_match(const std::string& name, const std::string& normalized) {
  return core::is_normalized_name(name) ? name == normalized
                                        : core::normalize_name(name) == normalized;
}

}  // namespace

std::string_view to_string(SourceKind kind) { return util::word_of(kSourceKinds, kind, "pypi"); }

std::optional<SourceKind> source_kind_from_string(std::string_view text) {
  return util::value_of(kSourceKinds, text);
}

std::string_view to_string(ReasonKind kind) {
  return util::word_of(kReasonKinds, kind, "requested");
}

std::optional<ReasonKind> reason_kind_from_string(std::string_view text) {
  return util::value_of(kReasonKinds, text);
}

bool pip_builds_alone(const BuildStep& step) {
  return step.source.has_value() && step.env.empty() && step.cuda_arch_list.empty();
}

const Package* Lockfile::find_package(std::string_view name) const {
  const std::string wanted = core::normalize_name(name);
  for (const Package& p : packages)
    if (names_match(p.name, wanted)) return &p;
  return nullptr;
}

const AppliedRule* Lockfile::find_rule(std::string_view id) const {
  for (const AppliedRule& r : rules_applied)
    if (r.id == id) return &r;
  return nullptr;
}

void canonicalize(Lockfile& lock) {
  std::vector<std::string>& gpus = lock.target.gpus;
  std::sort(gpus.begin(), gpus.end(), [](const std::string& a, const std::string& b) {
    return std::tuple(gpu_key(a), a) < std::tuple(gpu_key(b), b);
  });
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());

  for (Package& p : lock.packages) {
    sort_names(p.dependencies);
    std::stable_sort(p.artifacts.begin(), p.artifacts.end(),
                     [](const Artifact& a, const Artifact& b) {
                       return std::tie(a.filename, a.url) < std::tie(b.filename, b.url);
                     });
  }
  sort_by_normalized_name(lock.packages,
                          [](const Package& p) -> const std::string& { return p.name; });
  for (BuildStep& b : lock.builds) sort_names(b.after);
  std::stable_sort(lock.rules_applied.begin(), lock.rules_applied.end(),
                   [](const AppliedRule& a, const AppliedRule& b) { return a.id < b.id; });
}

Lockfile canonical(Lockfile lock) {
  canonicalize(lock);
  return lock;
}

}  // namespace bevenv::lockfiles
