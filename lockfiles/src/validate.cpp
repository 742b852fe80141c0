// Semantic checks shared by the writer (a model that breaks them is a bug in the caller) and
// the reader (a file that breaks them was edited by hand or is damaged).
#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "bevenv/core/marker.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/core/outside_text.hpp"
#include "bevenv/core/version.hpp"
#include "bevenv/lockfiles/model.hpp"

namespace bevenv::lockfiles {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool is_hex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), is_lower_hex);
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

// A catalogue id (matrix/data/failures.toml): `F2` for a field failure, else lower-case letters,
// digits, `-` and `.` starting with a letter or digit (`numpy-aliases`).
bool is_failure_id(std::string_view id) {
  if (id.size() > 1 && id[0] == 'F' && is_digits(id.substr(1))) return true;
  if (id.empty() || id[0] == '-' || id[0] == '.') return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
}

// `11.3`, `12.2`, `2.31`: two dot-separated numbers.
bool is_major_minor(std::string_view s) {
  const std::size_t dot = s.find('.');
  return dot != std::string_view::npos && is_digits(s.substr(0, dot)) &&
         is_digits(s.substr(dot + 1));
}

// `sm_86`, `sm_90a`.
bool is_gpu_arch(std::string_view s) {
  if (s.substr(0, 3) != "sm_") return false;
  std::string_view rest = s.substr(3);
  if (!rest.empty() && is_alpha(rest.back())) rest.remove_suffix(1);
  return is_digits(rest);
}

bool is_env_name(std::string_view s) {
  if (s.empty() || is_digit(s.front())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return is_alpha(c) || is_digit(c) || c == '_'; });
}

std::string quoted(std::string_view s) { return "`" + std::string(s) + "`"; }

// At most 80 bytes, control bytes shown as `?`: a message never carries a newline or an escape
// sequence from the file it describes.
std::string printable(std::string_view s) {
  std::string out(s.substr(0, 80));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s.size() > 80 ? out + "..." : out;
}

// A field's path (`package[3].artifacts[0].url`), written out only when a problem names it: a
// lock has thousands of fields, and checks pass far more often than they fail. A field refers
// to its parent, which must outlive it.
class Field {
 public:
  Field(const char* path) : key_(path) {}  // NOLINT: a top-level path, as written
  Field(const Field& parent, std::string_view key) : parent_(&parent), key_(key) {}
  Field(const Field& parent, std::size_t index) : parent_(&parent), index_(index) {}

  std::string str() const {
    std::string out = parent_ != nullptr ? parent_->str() : std::string();
    if (index_) return out + "[" + std::to_string(*index_) + "]";
    return out.empty() ? std::string(key_) : out + "." + std::string(key_);
  }

 private:
  const Field* parent_ = nullptr;
  std::string_view key_;
  std::optional<std::size_t> index_;
};

class Checker {
 public:
  explicit Checker(const Lockfile& lock) : lock_(lock) {
    for (const Package& p : lock.packages) package_names_.insert(core::normalize_name(p.name));
  }

  std::vector<Problem> run() {
    check_header();
    check_target();
    check_environment();
    for (std::size_t i = 0; i < lock_.packages.size(); ++i) check_package(i);
    for (std::size_t i = 0; i < lock_.builds.size(); ++i) check_build(i);
    for (std::size_t i = 0; i < lock_.rules_applied.size(); ++i) check_rule(i);
    return std::move(problems_);
  }

 private:
  void add(const Field& field, std::string message) {
    problems_.push_back(Problem{field.str(), std::move(message)});
  }
  void require_text(const Field& field, const std::string& value) {
    if (value.empty()) add(field, "expected a non-empty string");
  }
  // A build's name or a rule's id: non-empty, and not one `seen` already among the `what`s.
  void require_unique_text(const Field& field, const std::string& value, std::string_view what,
                           std::set<std::string>& seen) {
    require_text(field, value);
    if (!value.empty() && !seen.insert(value).second)
      add(field, std::string(what) + " " + quoted(value) + " appears more than once");
  }
  void require_sha256_digest(const Field& field, const std::string& value) {
    if (value.substr(0, 7) != "sha256:" || !is_hex64(std::string_view(value).substr(7)))
      add(field, "expected `sha256:` and 64 lower-case hex digits, found " + quoted(value));
  }
  void require_major_minor(const Field& field, const std::string& value) {
    if (!value.empty() && !is_major_minor(value))
      add(field, "expected a version like `12.2`, found " + quoted(value));
  }
  void require_canonical_version(const Field& field, const std::string& value) {
    const auto parsed = core::Version::parse(value);
    if (!parsed) {
      add(field, "expected a PEP 440 version, found " + quoted(value) + " (" +
                     parsed.error().to_string() + ")");
    } else if (parsed->to_string() != value) {
      add(field, "expected the canonical version " + quoted(parsed->to_string()) + ", found " +
                     quoted(value));
    }
  }
  void require_known_package(const Field& field, const std::string& name) {
    if (!core::is_valid_name(name))
      add(field, "expected a package name, found " + quoted(name));
    else if (package_names_.count(core::normalize_name(name)) == 0)
      add(field, "names package " + quoted(name) + ", which is not in the lockfile");
  }
  void require_env_names(const Field& field, const std::map<std::string, std::string>& env) {
    for (const auto& [key, value] : env)
      if (!is_env_name(key))
        add(field, "expected environment variable names, found " + quoted(key));
  }

  void check_header() {
    if (lock_.schema_version != kSchemaVersion)
      add("schema_version", "expected " + std::to_string(kSchemaVersion) + ", found " +
                                std::to_string(lock_.schema_version));
    require_text("generator", lock_.generator);
    require_text("matrix_version", lock_.matrix_version);
    require_sha256_digest("input_hash", lock_.input_hash);
  }

  void check_target() {
    const Target& t = lock_.target;
    require_canonical_version("target.python", t.python);
    require_text("target.platform", t.platform);
    require_major_minor("target.glibc", t.glibc);
    require_major_minor("target.cuda_driver", t.cuda_driver);
    const Field gpus("target.gpus");
    for (std::size_t i = 0; i < t.gpus.size(); ++i)
      if (!is_gpu_arch(t.gpus[i]))
        add(Field(gpus, i), "expected an architecture like `sm_86`, found " + quoted(t.gpus[i]));
  }

  void check_environment() {
    const Environment& e = lock_.environment;
    require_major_minor("environment.cuda", e.cuda);
    if (e.base_image.digest) {
      require_text("environment.base_image.tag", e.base_image.tag);
      require_sha256_digest("environment.base_image.digest", *e.base_image.digest);
    }
    require_env_names("environment.variables", e.variables);
  }

  void check_package(std::size_t index) {
    const Package& p = lock_.packages[index];
    const Field packages("package");
    const Field at(packages, index);
    if (!core::is_valid_name(p.name)) {
      add(Field(at, "name"), "expected a package name, found " + quoted(p.name));
    } else if (!seen_packages_.insert(core::normalize_name(p.name)).second) {
      add(Field(at, "name"), "package " + quoted(p.name) + " appears more than once");
    }
    require_canonical_version(Field(at, "version"), p.version);
    if (!p.variant.empty() && !std::all_of(p.variant.begin(), p.variant.end(), [](char c) {
          return is_alpha(c) || is_digit(c) || c == '.' || c == '_';
        }))
      add(Field(at, "variant"),
          "expected letters, digits, `.` or `_` (like `cu113`), found " + quoted(p.variant));
    const Field source(at, "source");
    require_text(Field(source, "url"), p.source.url);
    const Field artifacts(at, "artifacts");
    for (std::size_t i = 0; i < p.artifacts.size(); ++i)
      check_artifact(Field(artifacts, i), p.artifacts[i]);
    check_dependencies(at, p);
    const Field why(at, "why");
    for (std::size_t i = 0; i < p.why.size(); ++i) check_reason(Field(why, i), p.why[i]);
    if (p.markers) {
      const auto marker = core::Marker::parse(*p.markers);
      if (!marker)
        add(Field(at, "markers"), "expected a PEP 508 marker: " + marker.error().to_string());
    }
  }

  void check_dependencies(const Field& at, const Package& p) {
    const Field dependencies(at, "dependencies");
    const std::string self = core::normalize_name(p.name);
    std::set<std::string> deps;
    for (std::size_t i = 0; i < p.dependencies.size(); ++i) {
      const std::string& dep = p.dependencies[i];
      const Field dat(dependencies, i);
      require_known_package(dat, dep);
      std::string normalized = core::normalize_name(dep);
      if (normalized == self)
        add(dat, "package " + quoted(p.name) + " cannot depend on itself");
      else if (!deps.insert(std::move(normalized)).second)
        add(dat, "dependency " + quoted(dep) + " is listed more than once");
    }
  }

  // Artifacts come from index pages: their URL and file name must keep to the grammars that make
  // them safe as a URL in a requirements file and as one path component.
  void check_artifact(const Field& at, const Artifact& a) {
    const bool local = a.url.starts_with("file://");
    if (!local && !core::is_url_text(a.url))
      add(Field(at, "url"),
          "expected an http(s) URL of RFC 3986 characters (no spaces, quotes or braces), found " +
              quoted(printable(a.url)));
    if (local && a.url.find_first_of(std::string_view("\0\n\r", 3)) != std::string::npos)
      add(Field(at, "url"), "expected a file URL without control characters");
    if (!core::is_artifact_filename(a.filename))
      add(Field(at, "filename"),
          "expected a wheel or sdist file name of letters, digits and `._+!-`, found " +
              quoted(printable(a.filename)));
    if (a.sha256 && !is_hex64(*a.sha256))
      add(Field(at, "sha256"),
          "expected 64 lower-case hex digits, found " + quoted(printable(*a.sha256)));
  }

  void check_reason(const Field& at, const Reason& r) {
    require_text(Field(at, "text"), r.text);
    if (r.kind == ReasonKind::required_by) {
      if (!r.package) add(at, "a `required-by` reason needs `package`");
    }
    if (r.package) require_known_package(Field(at, "package"), *r.package);
    if (r.kind == ReasonKind::rule && !r.rule_id) add(at, "a `rule` reason needs `rule_id`");
    if (r.rule_id && lock_.find_rule(*r.rule_id) == nullptr)
      add(Field(at, "rule_id"), "names rule " + quoted(*r.rule_id) + ", which is not in `rule`");
    if (r.source) require_text(Field(at, "source"), *r.source);
  }

  void check_build(std::size_t index) {
    const BuildStep& b = lock_.builds[index];
    const Field builds("build");
    const Field at(builds, index);
    require_unique_text(Field(at, "name"), b.name, "build", seen_builds_);
    for (std::size_t i = 0; i < b.after.size(); ++i)
      require_known_package(Field(Field(at, "after"), i), b.after[i]);
    if (!b.package.empty()) require_known_package(Field(at, "package"), b.package);
    if (b.source) {
      check_artifact(Field(at, "source"), *b.source);
      if (b.package.empty()) add(Field(at, "package"), "a build with a `source` needs `package`");
      if (!b.source->sha256)
        add(Field(Field(at, "source"), "sha256"), "a build's source needs its sha256");
      if (!b.commands.empty())
        add(Field(at, "commands"), "a build with a `source` is run by bevenv and has no commands");
      if (b.working_dir)
        add(Field(at, "working_dir"), "a build with a `source` has no working_dir");
    }
    if (b.vcs) {
      if (!core::is_vcs_pin(*b.vcs))
        add(Field(at, "vcs"),
            "expected `git+https://HOST/REPO.git@` and a 40-digit commit, found " +
                quoted(printable(*b.vcs)));
      if (b.package.empty()) add(Field(at, "package"), "a build with `vcs` needs `package`");
      if (b.source) add(Field(at, "vcs"), "a build has a `source` or a `vcs`, not both");
      if (!b.commands.empty())
        add(Field(at, "commands"), "a build with `vcs` is run by bevenv and has no commands");
    }
    if (b.working_dir) require_text(Field(at, "working_dir"), *b.working_dir);
    require_env_names(Field(at, "env"), b.env);
    if (b.commands.empty() && !b.source && !b.vcs)
      add(Field(at, "commands"), "expected at least one command");
    for (std::size_t i = 0; i < b.commands.size(); ++i)
      require_text(Field(Field(at, "commands"), i), b.commands[i]);
  }

  void check_rule(std::size_t index) {
    const AppliedRule& r = lock_.rules_applied[index];
    const Field rules("rule");
    const Field at(rules, index);
    require_unique_text(Field(at, "id"), r.id, "rule", seen_rules_);
    if (!r.failure.empty() && !is_failure_id(r.failure))
      add(Field(at, "failure"),
          "expected a failure id like `F2` or `numpy-aliases`, found " + quoted(r.failure));
    require_text(Field(at, "effect"), r.effect);
    if (r.symptom) require_text(Field(at, "symptom"), *r.symptom);
    require_text(Field(at, "source"), r.source);
  }

  const Lockfile& lock_;
  std::set<std::string> package_names_;
  std::set<std::string> seen_packages_;
  std::set<std::string> seen_builds_;
  std::set<std::string> seen_rules_;
  std::vector<Problem> problems_;
};

}  // namespace

std::vector<Problem> validate(const Lockfile& lock) { return Checker(lock).run(); }

}  // namespace bevenv::lockfiles
