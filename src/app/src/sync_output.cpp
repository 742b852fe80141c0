// Lines and JSON of `bevenv sync`.
#include "sync_output.hpp"

#include <algorithm>

#include "bevenv/util/enum_words.hpp"

namespace bevenv::app {
namespace {

using json = nlohmann::json;

constexpr util::EnumWord<ChangeKind> kChangeWords[] = {{ChangeKind::install, "install"},
                                                       {ChangeKind::upgrade, "upgrade"},
                                                       {ChangeKind::downgrade, "downgrade"},
                                                       {ChangeKind::reinstall, "reinstall"},
                                                       {ChangeKind::remove, "remove"}};

std::string word(ChangeKind kind) {
  return std::string(util::word_of(kChangeWords, kind, "change"));
}

std::string route(const PlannedChange& c) {
  if (c.via == "hashed") return " (hash-checked)";
  if (c.via == "unhashed") return " (no sha256 recorded: installed without hash checking)";
  if (c.via == "build") return " (build `" + c.build + "`, no build isolation)";
  if (c.via == "none") return " (build `" + c.build + "` runs commands: not run by sync)";
  return "";
}

std::string change_text(const PlannedChange& c) {
  std::string out = word(c.kind) + " `" + c.name + "` ";
  if (c.kind == ChangeKind::install) return out + c.locked + route(c);
  if (c.kind == ChangeKind::remove) return out + c.installed;
  return out + c.installed + " → " + c.locked + route(c);
}

json plan_json(const SyncPlan& plan) {
  json changes = json::array();
  for (const PlannedChange& c : plan.changes)
    changes.push_back({{"kind", word(c.kind)},
                       {"name", c.name},
                       {"installed", c.installed.empty() ? json(nullptr) : json(c.installed)},
                       {"locked", c.locked.empty() ? json(nullptr) : json(c.locked)},
                       {"via", c.via},
                       {"build", c.build.empty() ? json(nullptr) : json(c.build)}});
  json builds = json::array();
  for (const auto* b : plan.builds) builds.push_back(b->name);
  return {{"changes", changes},
          {"unchanged", plan.unchanged},
          {"behind_markers", plan.behind_markers},
          {"kept", plan.kept},
          {"builds", builds},
          {"builds_not_run", plan.builds_not_run}};
}

std::vector<std::string> unique(std::vector<std::string> names) {
  std::vector<std::string> out;
  for (auto& n : names)
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
  return out;
}

void base_json(const SyncReport& r, CommandOutput& out) {
  out.json = {{"venv", r.options->venv.string()},
              {"lockfile", r.options->lockfile.string()},
              {"dry_run", r.options->dry_run},
              {"created", r.created},
              {"interpreter", r.interpreter.empty() ? json(nullptr) : json(r.interpreter.string())},
              {"plan", plan_json(r.plan)}};
}

void add_plan_lines(const SyncReport& r, CommandOutput& out, bool verbose_only) {
  out.add("Plan: " + plan_summary(r.plan));
  for (const PlannedChange& c : r.plan.changes)
    out.add(change_text(c), Mark::none, 1).verbose_only = verbose_only;
  out.add(std::to_string(r.plan.unchanged) + " locked packages already at their versions",
          Mark::none, 1)
      .verbose_only = true;
  for (const std::string& name : unique(r.plan.builds_not_run)) {
    out.add("not run by sync: build `" + name +
                "` (commands of the project; `bevenv build-image` runs them)",
            Mark::warning, 1);
  }
}

// `drift ✓ F2 ✓ F3 ✗ (3 environment checks)`: each check once, with its worst verdict.
std::string doctor_verdict(const json& doctor, std::size_t& problems) {
  std::vector<std::pair<std::string, int>> checks;  // 0 ok, 1 warning, 2 problem
  for (const json& c : doctor.value("checks", json::array())) {
    const std::string severity = c.value("severity", "ok");
    const int level = severity == "problem" ? 2 : severity == "warning" ? 1 : 0;
    const std::string id = c.value("id", "?");
    if (id == "shm" || id == "memlock") continue;  // facts of the host, not of the venv
    auto it = std::find_if(checks.begin(), checks.end(), [&](auto& p) { return p.first == id; });
    if (it == checks.end())
      checks.emplace_back(id, level);
    else
      it->second = std::max(it->second, level);
  }
  std::string out;
  for (const auto& [id, level] : checks) {
    out += (out.empty() ? "" : " ") + id + (level == 2 ? " ✗" : level == 1 ? " !" : " ✓");
    problems += level == 2 ? 1 : 0;
  }
  return out + " (" + std::to_string(checks.size()) + " environment checks)";
}

std::string done_text(const SyncReport& r) {
  std::string out = "Installed " + std::to_string(r.hashed + r.unhashed) + " (" +
                    std::to_string(r.hashed) + " hash-checked";
  if (r.unhashed > 0) out += ", " + std::to_string(r.unhashed) + " pinned by URL without a sha256";
  out += "), ran " + std::to_string(r.builds) + (r.builds == 1 ? " build" : " builds") +
         ", removed " + std::to_string(r.removed);
  return out;
}

}  // namespace

CommandOutput render_dry_run(const SyncReport& r) {
  CommandOutput out;
  base_json(r, out);
  out.json["in_sync"] = r.plan.in_sync();
  if (!r.interpreter.empty()) {
    out.add("Would create `" + r.options->venv.string() + "` with `" + r.interpreter.string() + "`",
            Mark::info);
  }
  add_plan_lines(r, out, false);
  const std::string venv = "`" + r.options->venv.string() + "`";
  if (r.plan.in_sync()) {
    out.add(venv + " matches `" + r.options->lockfile.string() + "`", Mark::ok);
    return out;
  }
  // The command that applies the plan names the lock unless it is `bevenv.lock` (naming
  // `bevenv.toml`'s own lockfile again is harmless, and reading that file here could fail).
  const bool default_lock = r.options->lockfile == "bevenv.lock";
  out.add("Dry run: nothing changed; `bevenv sync --venv " + r.options->venv.string() +
              (default_lock ? "" : " --lockfile " + r.options->lockfile.string()) +
              "` applies this plan",
          Mark::info);
  out.exit_code = core::ExitCode::problem_found;
  return out;
}

CommandOutput render_sync(const SyncReport& r) {
  CommandOutput out;
  base_json(r, out);
  const std::string venv = "`" + r.options->venv.string() + "`";
  if (r.created) out.add("Created " + venv + " with `" + r.interpreter.string() + "`", Mark::info);
  add_plan_lines(r, out, true);
  if (!r.plan.in_sync()) out.add(done_text(r), Mark::info);
  std::vector<const PlannedChange*> left;
  for (const PlannedChange& c : r.after.changes)
    if (c.via != "none") left.push_back(&c);
  out.json["after"] = plan_json(r.after);
  out.json["in_sync"] = left.empty();
  out.json["installed"] = {
      {"hashed", r.hashed}, {"unhashed", r.unhashed}, {"builds", r.builds}, {"removed", r.removed}};
  out.json["doctor"] = r.doctor.is_null() ? json(nullptr) : r.doctor.value("checks", json());
  if (!left.empty()) {
    out.add(venv + " still differs from the lock after syncing:", Mark::problem);
    for (const PlannedChange* c : left) out.add(change_text(*c), Mark::none, 1);
    out.exit_code = core::ExitCode::problem_found;
    return out;
  }
  std::string verdict = venv + " matches `" + r.options->lockfile.string() + "`";
  std::size_t problems = 0;
  if (!r.doctor.is_null()) verdict += "; doctor: " + doctor_verdict(r.doctor, problems);
  if (!r.doctor_error.empty()) verdict += "; doctor not run: " + r.doctor_error;
  out.add(verdict, problems > 0 ? Mark::warning : Mark::ok);
  if (problems > 0)
    out.hint("details: `bevenv doctor --python " + r.options->venv.string() + "/bin/python`");
  return out;
}

}  // namespace bevenv::app
