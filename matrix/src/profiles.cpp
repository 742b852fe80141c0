// `extends`: a profile inherits what it does not set; lists merge with the child winning per
// requirement name, environment variable and build step name.
#include <algorithm>
#include <set>

#include "bevenv/core/name.hpp"
#include "checks.hpp"

namespace bevenv::matrix::detail {
namespace {

template <class T>
void inherit(std::optional<T>& own, const std::optional<T>& parent) {
  if (!own) own = parent;
}

void append_unique(std::vector<std::string>& into, const std::vector<std::string>& from) {
  for (const auto& item : from) {
    if (std::find(into.begin(), into.end(), item) == into.end()) into.push_back(item);
  }
}

// The parent's requirements the child does not name, then the child's.
std::vector<core::Requirement> merged_by_name(const std::vector<core::Requirement>& parent,
                                              const std::vector<core::Requirement>& own) {
  std::vector<core::Requirement> out;
  for (const auto& inherited : parent) {
    const bool overridden = std::any_of(own.begin(), own.end(), [&](const auto& r) {
      return r.normalized_name() == inherited.normalized_name();
    });
    if (!overridden) out.push_back(inherited);
  }
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

// `child` over an already resolved `parent`.
void merge_into(RawProfile& child, const RawProfile& parent) {
  inherit(child.python, parent.python);
  inherit(child.cuda, parent.cuda);
  inherit(child.base_image, parent.base_image);
  inherit(child.summary, parent.summary);
  inherit(child.train_gpu_memory_gib, parent.train_gpu_memory_gib);
  inherit(child.memory_basis, parent.memory_basis);
  inherit(child.dataloader_workers_per_gpu, parent.dataloader_workers_per_gpu);
  inherit(child.offline, parent.offline);
  Profile& own = child.own;
  own.requirements = merged_by_name(parent.own.requirements, own.requirements);
  own.preferred = merged_by_name(parent.own.preferred, own.preferred);
  std::vector<std::string> indexes = parent.own.indexes;
  append_unique(indexes, own.indexes);
  own.indexes = std::move(indexes);
  std::vector<std::string> links = parent.own.find_links;
  append_unique(links, own.find_links);
  own.find_links = std::move(links);
  for (const auto& [key, value] : parent.own.env) own.env.emplace(key, value);
  std::vector<BuildStep> builds;
  for (const auto& step : parent.own.builds) {
    const bool overridden = std::any_of(own.builds.begin(), own.builds.end(),
                                        [&](const auto& b) { return b.name == step.name; });
    if (!overridden) builds.push_back(step);
  }
  builds.insert(builds.end(), own.builds.begin(), own.builds.end());
  own.builds = std::move(builds);
  append_unique(own.sources, parent.own.sources);
  own.lineage.insert(own.lineage.end(), parent.own.lineage.begin(), parent.own.lineage.end());
}

struct Resolver {
  std::map<std::string, RawProfile, std::less<>>& raw;
  std::vector<Diagnostic>& diagnostics;
  std::set<std::string> done;
  std::set<std::string> in_cycle;

  // Returns false when `name` cannot be resolved (cycle or dangling parent, reported).
  bool resolve(const std::string& name, std::vector<std::string>& path) {
    if (done.count(name) != 0) return in_cycle.count(name) == 0;
    RawProfile& profile = raw.at(name);
    path.push_back(name);
    bool ok = true;
    const std::string& parent = profile.own.extends;
    if (!parent.empty()) {
      const auto found = std::find(path.begin(), path.end(), parent);
      if (found != path.end()) {
        report_cycle(std::vector<std::string>(found, path.end()));
        ok = false;
      } else if (raw.count(parent) == 0) {
        const auto& at = profile.extends_at;
        diagnostics.push_back(
            Diagnostic{profile.own.origin.file.str(), static_cast<std::uint32_t>(at.line),
                       static_cast<std::uint32_t>(at.column),
                       "profile `" + name + "` extends `" + parent + "`, which is not a profile"});
        ok = false;
      } else if (!resolve(parent, path)) {
        ok = false;
      } else {
        merge_into(profile, raw.at(parent));
      }
    }
    path.pop_back();
    done.insert(name);
    if (!ok) in_cycle.insert(name);
    return ok;
  }

  void report_cycle(const std::vector<std::string>& members) {
    if (in_cycle.count(members.front()) != 0) return;
    // Named from its smallest member so the message does not depend on where the walk began.
    const auto first = std::min_element(members.begin(), members.end());
    std::vector<std::string> ordered(first, members.end());
    ordered.insert(ordered.end(), members.begin(), first);
    std::string chain;
    for (const auto& member : ordered) chain += "`" + member + "` -> ";
    chain += "`" + ordered.front() + "`";
    const RawProfile& at = raw.at(ordered.front());
    diagnostics.push_back(
        Diagnostic{at.own.origin.file.str(), static_cast<std::uint32_t>(at.extends_at.line),
                   static_cast<std::uint32_t>(at.extends_at.column), "profile cycle: " + chain});
    for (const auto& member : members) in_cycle.insert(member);
  }
};

}  // namespace

void resolve_profiles(std::map<std::string, RawProfile, std::less<>>& raw, Matrix& out,
                      std::vector<Diagnostic>& diagnostics) {
  for (auto& [name, profile] : raw) profile.own.lineage = {name};
  Resolver resolver{raw, diagnostics, {}, {}};
  for (const auto& [name, profile] : raw) {
    std::vector<std::string> path;
    resolver.resolve(name, path);
  }
  for (auto& [name, profile] : raw) {
    if (resolver.in_cycle.count(name) != 0) continue;
    Profile resolved = std::move(profile.own);
    resolved.python = profile.python.value_or("");
    resolved.cuda = profile.cuda.value_or("");
    resolved.base_image = profile.base_image.value_or("");
    resolved.summary = profile.summary.value_or("");
    resolved.train_gpu_memory_gib = profile.train_gpu_memory_gib;
    resolved.memory_basis = profile.memory_basis.value_or(MemoryBasis::estimate);
    resolved.dataloader_workers_per_gpu = profile.dataloader_workers_per_gpu;
    resolved.offline = profile.offline.value_or(false);
    out.profiles.emplace(name, std::move(resolved));
  }
}

}  // namespace bevenv::matrix::detail
