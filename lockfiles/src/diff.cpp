#include "bevenv/lockfiles/diff.hpp"

#include <map>
#include <set>

#include "bevenv/core/name.hpp"
#include "bevenv/util/text.hpp"

namespace bevenv::lockfiles {
namespace {

std::string or_none(const std::string& s) { return s.empty() ? "(none)" : s; }
std::string or_none(const std::optional<std::string>& s) { return s ? or_none(*s) : "(none)"; }

std::string image_text(const BaseImage& image) {
  if (image.tag.empty()) return "(none)";
  return image.digest ? image.tag + "@" + *image.digest : image.tag;
}

std::string source_text(const Source& s) { return std::string(to_string(s.kind)) + " " + s.url; }

// Each key of `a` or `b`, in key order: `added(entry)` where only `b` has it, `removed(entry)`
// where only `a` does, else `both(old_entry, new_entry)`.
template <class Map, class Added, class Removed, class Both>
void compare_keyed(const Map& a, const Map& b, Added added, Removed removed, Both both) {
  std::set<typename Map::key_type> keys;
  for (const auto& entry : a) keys.insert(entry.first);
  for (const auto& entry : b) keys.insert(entry.first);
  for (const auto& key : keys) {
    const auto old_it = a.find(key);
    const auto new_it = b.find(key);
    if (old_it == a.end())
      added(*new_it);
    else if (new_it == b.end())
      removed(*old_it);
    else
      both(*old_it, *new_it);
  }
}

class Differ {
 public:
  std::vector<Change> run(const Lockfile& a, const Lockfile& b) {
    field("schema", std::to_string(a.schema_version), std::to_string(b.schema_version));
    field("generator", a.generator, b.generator);
    field("matrix version", a.matrix_version, b.matrix_version);
    if (a.input_hash != b.input_hash) changed("input hash changed");
    field("profile", or_none(a.profile), or_none(b.profile));
    field("target python", a.target.python, b.target.python);
    field("target platform", a.target.platform, b.target.platform);
    field("target glibc", or_none(a.target.glibc), or_none(b.target.glibc));
    field("target CUDA driver", or_none(a.target.cuda_driver), or_none(b.target.cuda_driver));
    field("target GPUs", or_none(util::join(a.target.gpus, " ")),
          or_none(util::join(b.target.gpus, " ")));
    inputs(a.inputs, b.inputs);
    field("CUDA", or_none(a.environment.cuda), or_none(b.environment.cuda));
    field("base image", image_text(a.environment.base_image), image_text(b.environment.base_image));
    field("TORCH_CUDA_ARCH_LIST", or_none(a.environment.torch_cuda_arch_list),
          or_none(b.environment.torch_cuda_arch_list));
    string_maps("variable ", a.environment.variables, b.environment.variables);
    packages(a.packages, b.packages);
    builds(a.builds, b.builds);
    rules(a.rules_applied, b.rules_applied);
    return std::move(changes_);
  }

 private:
  void add(ChangeKind kind, std::string text) { changes_.push_back(Change{kind, std::move(text)}); }
  void changed(std::string text) { add(ChangeKind::changed, std::move(text)); }
  void field(const std::string& what, const std::string& before, const std::string& after) {
    if (before != after) changed(what + " " + before + " -> " + after);
  }

  void inputs(const Inputs& a, const Inputs& b) {
    field("inputs: requirements", or_none(util::join(a.requirements, " ")),
          or_none(util::join(b.requirements, " ")));
    field("inputs: requirements file", or_none(a.requirements_file), or_none(b.requirements_file));
    field("inputs: project file", or_none(a.project_file), or_none(b.project_file));
    field("inputs: index URL", or_none(a.index_url), or_none(b.index_url));
    field("inputs: extra index URLs", or_none(util::join(a.extra_index_urls, " ")),
          or_none(util::join(b.extra_index_urls, " ")));
    field("inputs: find-links", or_none(util::join(a.find_links, " ")),
          or_none(util::join(b.find_links, " ")));
    field("inputs: no index", a.no_index ? "yes" : "no", b.no_index ? "yes" : "no");
    field("profile from", or_none(a.profile_from), or_none(b.profile_from));
    field("python from", or_none(a.python_from), or_none(b.python_from));
    field("CUDA driver from", or_none(a.cuda_driver_from), or_none(b.cuda_driver_from));
    field("GPUs from", or_none(a.gpus_from), or_none(b.gpus_from));
    field("platform from", or_none(a.platform_from), or_none(b.platform_from));
    field("glibc from", or_none(a.glibc_from), or_none(b.glibc_from));
  }

  // One change per key, in key order.
  void string_maps(const std::string& what, const std::map<std::string, std::string>& a,
                   const std::map<std::string, std::string>& b) {
    compare_keyed(
        a, b,
        [&](const auto& added) {
          add(ChangeKind::added, "+ " + what + added.first + "=" + added.second);
        },
        [&](const auto& removed) { add(ChangeKind::removed, "- " + what + removed.first); },
        [&](const auto& old_entry, const auto& new_entry) {
          if (old_entry.second != new_entry.second)
            changed(what + old_entry.first + " " + old_entry.second + " -> " + new_entry.second);
        });
  }

  void name_lists(const std::string& what, const std::vector<std::string>& a,
                  const std::vector<std::string>& b) {
    std::set<std::string> before;
    std::set<std::string> after;
    for (const std::string& n : a) before.insert(n);
    for (const std::string& n : b) after.insert(n);
    std::vector<std::string> parts;
    for (const std::string& n : b)
      if (before.count(n) == 0) parts.push_back("+ " + n);
    for (const std::string& n : a)
      if (after.count(n) == 0) parts.push_back("- " + n);
    if (!parts.empty()) changed(what + ": " + util::join(parts, ", "));
  }

  void artifacts(const std::string& name, const std::vector<Artifact>& a,
                 const std::vector<Artifact>& b) {
    std::map<std::string, const Artifact*> before;
    for (const Artifact& x : a) before.emplace(x.filename, &x);
    std::set<std::string> seen;
    for (const Artifact& x : b) {
      seen.insert(x.filename);
      const auto it = before.find(x.filename);
      if (it == before.end()) {
        add(ChangeKind::added, name + " artifact + " + x.filename);
        continue;
      }
      const Artifact& old = *it->second;
      const std::string at = name + " artifact " + x.filename;
      if (old.url != x.url) changed(at + ": url " + old.url + " -> " + x.url);
      if (old.sha256 != x.sha256) changed(at + ": sha256 changed");
      if (old.size != x.size)
        changed(at + ": size " + (old.size ? std::to_string(*old.size) : "(none)") + " -> " +
                (x.size ? std::to_string(*x.size) : "(none)"));
    }
    for (const Artifact& x : a)
      if (seen.count(x.filename) == 0) add(ChangeKind::removed, name + " artifact - " + x.filename);
  }

  void package(const Package& a, const Package& b) {
    const std::string& name = b.name;
    if (a.name != b.name) changed("package name " + a.name + " -> " + b.name);
    if (a.version != b.version)
      changed(name + " " + a.version + " -> " + b.version);
    else if (a.variant != b.variant)
      changed(name + " variant " + or_none(a.variant) + " -> " + or_none(b.variant));
    if (a.source != b.source)
      changed(name + " source " + source_text(a.source) + " -> " + source_text(b.source));
    if (a.markers != b.markers)
      changed(name + " markers " + or_none(a.markers) + " -> " + or_none(b.markers));
    name_lists(name + " dependencies", a.dependencies, b.dependencies);
    artifacts(name, a.artifacts, b.artifacts);
    if (a.why != b.why) changed(name + ": the recorded reasons (why) changed");
  }

  void packages(const std::vector<Package>& a, const std::vector<Package>& b) {
    std::map<std::string, const Package*> before;
    std::map<std::string, const Package*> after;
    for (const Package& p : a) before.emplace(core::normalize_name(p.name), &p);
    for (const Package& p : b) after.emplace(core::normalize_name(p.name), &p);
    compare_keyed(
        before, after,
        [&](const auto& added) {
          add(ChangeKind::added, "+ " + added.second->name + " " + added.second->version);
        },
        [&](const auto& removed) {
          add(ChangeKind::removed, "- " + removed.second->name + " " + removed.second->version);
        },
        [&](const auto& old_entry, const auto& new_entry) {
          package(*old_entry.second, *new_entry.second);
        });
  }

  void builds(const std::vector<BuildStep>& a, const std::vector<BuildStep>& b) {
    std::map<std::string, const BuildStep*> before;
    std::vector<std::string> order_before;
    std::vector<std::string> order_after;
    for (const BuildStep& s : a) before.emplace(s.name, &s);
    for (const BuildStep& s : b) {
      const auto it = before.find(s.name);
      if (it == before.end()) {
        add(ChangeKind::added, "+ build " + s.name);
        continue;
      }
      order_after.push_back(s.name);
      const BuildStep& old = *it->second;
      const std::string at = "build " + s.name;
      name_lists(at + " after", old.after, s.after);
      if (old.working_dir != s.working_dir)
        changed(at + " working directory " + or_none(old.working_dir) + " -> " +
                or_none(s.working_dir));
      field(at + " cuda_arch_list", or_none(old.cuda_arch_list), or_none(s.cuda_arch_list));
      if (old.commands != s.commands) changed(at + ": commands changed");
      field(at + " package", or_none(old.package), or_none(s.package));
      field(at + " vcs", or_none(old.vcs), or_none(s.vcs));
      if (old.source != s.source)
        changed(at + " source " + (old.source ? old.source->filename : "(none)") + " -> " +
                (s.source ? s.source->filename : "(none)"));
      string_maps(at + " env ", old.env, s.env);
    }
    std::set<std::string> now;
    for (const BuildStep& s : b) now.insert(s.name);
    for (const BuildStep& s : a) {
      if (now.count(s.name) == 0)
        add(ChangeKind::removed, "- build " + s.name);
      else
        order_before.push_back(s.name);
    }
    if (order_before != order_after)
      changed("build order " + util::join(order_before, ", ") + " -> " +
              util::join(order_after, ", "));
  }

  void rules(const std::vector<AppliedRule>& a, const std::vector<AppliedRule>& b) {
    std::map<std::string, const AppliedRule*> before;
    std::map<std::string, const AppliedRule*> after;
    for (const AppliedRule& r : a) before.emplace(r.id, &r);
    for (const AppliedRule& r : b) after.emplace(r.id, &r);
    for (const auto& [id, r] : before)
      if (after.count(id) == 0) add(ChangeKind::removed, "- rule " + id);
    for (const auto& [id, r] : after) {
      const auto it = before.find(id);
      if (it == before.end()) {
        add(ChangeKind::added, "+ rule " + id + " (" + r->effect + ")");
      } else if (*it->second != *r) {
        field("rule " + id + " effect", it->second->effect, r->effect);
        if (it->second->effect == r->effect) changed("rule " + id + ": details changed");
      }
    }
  }

  std::vector<Change> changes_;
};

}  // namespace

std::vector<Change> diff_lockfiles(const Lockfile& before, const Lockfile& after) {
  const Lockfile a = canonical(before);
  const Lockfile b = canonical(after);
  std::vector<Change> changes = Differ().run(a, b);
  // A safety net for facts the itemized comparison does not name (duplicate entries, say): the
  // promise is that an empty list means identical files.
  if (changes.empty() && a != b)
    changes.push_back(Change{ChangeKind::changed, "lockfile content changed"});
  return changes;
}

}  // namespace bevenv::lockfiles
