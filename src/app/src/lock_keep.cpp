#include "lock_keep.hpp"

#include <algorithm>
#include <iterator>
#include <map>

#include "bevenv/core/closest.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/core/specifier.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

// The version as the solver knows it: a variant written apart (`mmcv-full 1.4.0`,
// `cu113.torch1.10.0`) is its local label.
std::string solver_version(const lockfiles::Pin& p) {
  if (p.variant.empty() || p.version.find('+') != std::string::npos) return p.version;
  return p.version + "+" + p.variant;
}

std::string pin_text(const lockfiles::Pin& p) { return p.name + " " + solver_version(p); }

bool same_target(const lockfiles::PinnedLock& previous, const LockInputs& inputs) {
  const lockfiles::Target& t = previous.target;
  std::vector<std::string> gpus;
  for (const auto& gpu : inputs.target.gpus) gpus.push_back(gpu.name());
  const std::string driver =
      inputs.target.cuda_driver ? inputs.target.cuda_driver->to_string() : std::string();
  const std::string profile = inputs.profile != nullptr ? inputs.profile->name : std::string();
  return previous.profile == profile && t.python == inputs.target.python.to_string() &&
         t.platform == inputs.target.platform && t.cuda_driver == driver && t.gpus == gpus;
}

// The normalized names `--upgrade-package` lets move; each must be pinned by `previous`.
std::vector<std::string> upgrade_names(const lockfiles::PinnedLock& previous,
                                       const LockOptions& options) {
  std::vector<std::string> pinned;
  for (const auto& p : previous.pins) pinned.push_back(core::normalize_name(p.name));
  std::vector<std::string> out;
  for (const auto& name : options.upgrade_packages) {
    const std::string wanted = core::normalize_name(name);
    if (previous.find(wanted) == nullptr) {
      const std::string near = core::closest(wanted, pinned);
      throw Error(ExitCode::bad_input,
                  "`--upgrade-package " + name + "`: the lock pins no `" + name + "`",
                  near.empty() ? "name a package the lock pins (`bevenv export` lists them)"
                               : "did you mean `" + near + "`?");
    }
    out.push_back(wanted);
  }
  return out;
}

}  // namespace

std::vector<solver::Preference> previous_pin_preferences(const LockInputs& inputs,
                                                         const lockfiles::PinnedLock& previous,
                                                         const LockOptions& options) {
  const std::vector<std::string> moving = upgrade_names(previous, options);
  if (options.upgrade || !same_target(previous, inputs)) return {};
  std::vector<solver::Preference> kept;
  for (const auto& p : previous.pins) {
    const std::string name = core::normalize_name(p.name);
    if (std::find(moving.begin(), moving.end(), name) != moving.end()) continue;
    // `===`: this very build (a PyPI torch 2.8.0 is not its +cu126 twin), as observed records do.
    auto exact = core::SpecifierSet::parse("===" + solver_version(p));
    if (!exact) continue;  // a version the reader accepted always parses; never guess
    kept.push_back({name, std::move(exact).value()});
  }
  return kept;
}

void keep_previous_pins(Translation& translation, std::vector<solver::Preference> kept) {
  auto& preferred = translation.request.preferred;
  preferred.insert(preferred.begin(), std::make_move_iterator(kept.begin()),
                   std::make_move_iterator(kept.end()));
}

std::vector<std::string> pin_changes(const lockfiles::PinnedLock& previous,
                                     const lockfiles::Lockfile& fresh) {
  const lockfiles::PinnedLock now_pinned = lockfiles::pins_of(fresh);
  std::map<std::string, const lockfiles::Pin*> before;
  std::map<std::string, const lockfiles::Pin*> after;
  for (const auto& p : previous.pins) before[core::normalize_name(p.name)] = &p;
  for (const auto& p : now_pinned.pins) after[core::normalize_name(p.name)] = &p;
  std::vector<std::string> out;
  for (const auto& [name, old] : before) {
    const auto now = after.find(name);
    if (now == after.end()) {
      out.push_back("- " + pin_text(*old));
    } else if (solver_version(*old) != solver_version(*now->second)) {
      out.push_back(old->name + " " + solver_version(*old) + " -> " + solver_version(*now->second));
    }
  }
  for (const auto& [name, now] : after) {
    if (before.count(name) == 0) out.push_back("+ " + pin_text(*now));
  }
  return out;
}

}  // namespace bevenv::app
