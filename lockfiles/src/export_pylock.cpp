// The lockfile as a PEP 751 `pylock.toml`
// (https://packaging.python.org/en/latest/specifications/pylock-toml/): one target, so one
// `environments` marker, and each package's files with their sha256. What the format cannot say
// (build steps with commands, files without a hash) is left out and recorded under
// `[tool.bevenv]`, which installers ignore.
#include <map>

#include "bevenv/core/name.hpp"
#include "bevenv/lockfiles/export.hpp"
#include "toml_text.hpp"

namespace bevenv::lockfiles {
namespace {

using detail::toml_string;

std::string str(std::string_view text) { return toml_string(text, "pylock"); }

// `3.8` of `3.8.18`.
std::string python_minor(const std::string& python) {
  const auto first = python.find('.');
  if (first == std::string::npos) return python;
  const auto second = python.find('.', first + 1);
  return second == std::string::npos ? python : python.substr(0, second);
}

// The target as one marker: installers refuse the file on any other interpreter or machine.
std::string environment_marker(const Target& target) {
  std::string out = "python_version == \"" + python_minor(target.python) + "\"";
  if (target.platform.starts_with("linux_")) {
    out += " and sys_platform == \"linux\" and platform_machine == \"" + target.platform.substr(6) +
           "\"";
  }
  return out;
}

bool is_wheel(const Artifact& a) { return a.filename.ends_with(".whl"); }

// `{ name = ..., url = ..., size = ..., hashes = { sha256 = ... } }`; an empty `hashes` table
// when the lock has no sha256 (only written with allow_unhashed).
std::string file_table(const Artifact& a) {
  std::string out = "{ name = " + str(a.filename) + ", url = " + str(a.url);
  if (a.size) out += ", size = " + std::to_string(*a.size);
  out += a.sha256 ? ", hashes = { sha256 = " + str(*a.sha256) + " } }" : ", hashes = {} }";
  return out;
}

std::string files(const std::vector<Artifact>& artifacts) {
  std::string wheels;
  const Artifact* sdist = nullptr;
  for (const Artifact& a : artifacts) {
    if (is_wheel(a))
      wheels += "  " + file_table(a) + ",\n";
    else if (sdist == nullptr)
      sdist = &a;  // one sdist per package: the lock records at most one
  }
  std::string out;
  if (sdist != nullptr) out += "sdist = " + file_table(*sdist) + "\n";
  if (!wheels.empty()) out += "wheels = [\n" + wheels + "]\n";
  return out;
}

// `git+https://HOST/REPO.git@<commit>` as a pylock `vcs` table.
std::string vcs_table(const std::string& pin) {
  const std::string url = pin.starts_with("git+") ? pin.substr(4) : pin;
  const auto at = url.rfind('@');
  return "vcs = { type = \"git\", url = " + str(url.substr(0, at)) +
         ", commit-id = " + str(at == std::string::npos ? "" : url.substr(at + 1)) + " }\n";
}

// PyPI and PEP 503/691 indexes are simple-API base URLs; find-links pages and directories are not.
std::optional<std::string> index_of(const Source& source) {
  if (source.kind == SourceKind::pypi) return "https://pypi.org/simple";
  if (source.kind == SourceKind::index) return source.url;
  return std::nullopt;
}

// A source tree (a VCS pin) has neither a version the file can promise (the spec says leave it
// out) nor an index it was found on.
std::string package_head(const Package& p, bool source_tree) {
  std::string out = "\n[[packages]]\nname = " + str(core::normalize_name(p.name)) + "\n";
  if (!source_tree) out += "version = " + str(p.version) + "\n";
  if (p.markers) out += "marker = " + str(*p.markers) + "\n";
  const auto index = index_of(p.source);
  if (index && !source_tree) out += "index = " + str(*index) + "\n";
  if (!p.dependencies.empty()) {
    out += "dependencies = [";
    for (std::size_t i = 0; i < p.dependencies.size(); ++i)
      out += (i == 0 ? "{ name = " : ", { name = ") + str(core::normalize_name(p.dependencies[i])) +
             " }";
    out += "]\n";
  }
  return out;
}

using BuiltBy = std::map<std::string, const BuildStep*>;

BuiltBy packages_built(const Lockfile& lock) {
  BuiltBy out;
  for (const BuildStep& b : lock.builds)
    if (!b.package.empty()) out[core::normalize_name(b.package)] = &b;
  return out;
}

bool all_hashed(const std::vector<Artifact>& artifacts) {
  for (const Artifact& a : artifacts)
    if (!a.sha256) return false;
  return true;
}

// Writes one package, or records why it cannot be written.
void add_package(const Package& p, const BuildStep* build, const PylockOptions& options,
                 PylockExport& out) {
  const auto omit = [&](std::string reason) {
    out.left_out.push_back({p.name, p.version, std::move(reason)});
  };
  if (build != nullptr && build->vcs) {
    out.text += package_head(p, true) + vcs_table(*build->vcs);
    out.build_isolation.push_back(p.name);
  } else if (build != nullptr && build->source && !pip_builds_alone(*build)) {
    return omit("installed by build `" + build->name +
                "`, which sets variables for it (pylock cannot say so)");
  } else if (build != nullptr && build->source) {
    if (!build->source->sha256 && !options.allow_unhashed) return omit("no sha256 recorded");
    if (!build->source->sha256) out.unhashed.push_back(p.name);
    out.text += package_head(p, false) + "sdist = " + file_table(*build->source) + "\n";
    out.build_isolation.push_back(p.name);
  } else if (build != nullptr) {
    return omit("installed by build `" + build->name + "`, which runs commands");
  } else if (p.artifacts.empty()) {
    return omit("no file recorded");
  } else if (!all_hashed(p.artifacts) && !options.allow_unhashed) {
    return omit("no sha256 recorded");
  } else {
    if (!all_hashed(p.artifacts)) out.unhashed.push_back(p.name);
    out.text += package_head(p, false) + files(p.artifacts);
  }
  ++out.packages;
}

std::string header(const Lockfile& lock, const PylockOptions& options) {
  std::string out = "# Generated by bevenv from " + options.lockfile_name;
  if (!lock.profile.empty()) out += " (profile " + lock.profile + ")";
  out += "; do not edit by hand.\n";
  out += "# Regenerate it with `bevenv export --format pylock`; format: PEP 751.\n";
  out += "# Install: uv pip install --python VENV -r pylock.toml (`bevenv sync` also runs the\n";
  out += "# lock's build steps, which this format cannot express).\n";
  out += "lock-version = \"1.0\"\n";
  out += "environments = [" + str(environment_marker(lock.target)) + "]\n";
  if (!lock.target.python.empty())
    out += "requires-python = " + str("==" + python_minor(lock.target.python) + ".*") + "\n";
  // Single-use: the lock has no extras or groups to choose from.
  out += "extras = []\ndependency-groups = []\ndefault-groups = []\n";
  out += "created-by = \"bevenv\"\n";
  return out;
}

// Where an installer finds what the file leaves out: the file's URL, else the package's page.
std::string where_left_out(const Lockfile& lock, const PylockOmission& o) {
  const Package* p = o.version.empty() ? nullptr : lock.find_package(o.name);
  if (p == nullptr) return "";
  if (p->artifacts.size() == 1) return ", url = " + str(p->artifacts.front().url);
  if (p->artifacts.empty() && p->source.kind != SourceKind::pypi && !p->source.url.empty())
    return ", source = " + str(p->source.url);
  return "";
}

// Disposable facts for people and tools (PEP 751 `[tool]`): where the file came from and what
// it leaves out, with the file URL an installer would need.
std::string tool_table(const Lockfile& lock, const PylockOptions& options,
                       const PylockExport& out) {
  std::string text = "\n[tool.bevenv]\nlockfile = " + str(options.lockfile_name) + "\n";
  if (!lock.input_hash.empty()) text += "input-hash = " + str(lock.input_hash) + "\n";
  if (!lock.profile.empty()) text += "profile = " + str(lock.profile) + "\n";
  if (out.left_out.empty()) return text;
  text += "left-out = [\n";
  for (const PylockOmission& o : out.left_out) {
    text += "  { name = " + str(o.name);
    if (!o.version.empty()) text += ", version = " + str(o.version);
    text += ", reason = " + str(o.reason);
    text += where_left_out(lock, o) + " },\n";
  }
  return text + "]\n";
}

}  // namespace

PylockExport export_pylock(const Lockfile& model, const PylockOptions& options) {
  const Lockfile lock = canonical(model);
  PylockExport out;
  out.text = header(lock, options);
  const BuiltBy built = packages_built(lock);
  for (const Package& p : lock.packages) {
    const auto it = built.find(core::normalize_name(p.name));
    add_package(p, it == built.end() ? nullptr : it->second, options, out);
  }
  for (const BuildStep& b : lock.builds)
    if (b.package.empty()) out.left_out.push_back({b.name, "", "build step with commands"});
  out.text += tool_table(lock, options, out);
  return out;
}

}  // namespace bevenv::lockfiles
