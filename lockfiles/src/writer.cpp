#include "bevenv/lockfiles/writer.hpp"

#include <string_view>
#include <utility>
#include <vector>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/core/sha256.hpp"
#include "toml_text.hpp"

namespace bevenv::lockfiles {
namespace {

using detail::toml_key;
using detail::toml_string;

// Arrays that fit on one line stay on one line; longer ones get one element per line so that
// a change to one element is a one-line diff.
constexpr std::size_t kLineLimit = 100;

class TomlWriter {
 public:
  std::string take() { return std::move(out_); }

  void comment(std::string_view text) { out_.append("# ").append(text).append("\n"); }
  void blank() { out_ += '\n'; }
  void header(std::string_view name) { out_.append("[").append(name).append("]\n"); }
  void array_header(std::string_view name) { out_.append("[[").append(name).append("]]\n"); }

  void string(std::string_view key, std::string_view value, std::string_view field) {
    out_.append(key).append(" = ").append(toml_string(value, field)).append("\n");
  }
  void optional_string(std::string_view key, std::string_view value, std::string_view field) {
    if (!value.empty()) string(key, value, field);
  }
  void integer(std::string_view key, long long value) { raw(key, std::to_string(value)); }
  void raw(std::string_view key, std::string_view value) {
    out_.append(key).append(" = ").append(value).append("\n");
  }
  void string_array(std::string_view key, const std::vector<std::string>& values,
                    std::string_view field) {
    if (values.empty()) return;
    std::string one_line = std::string(key) + " = [";
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) one_line += ", ";
      one_line += toml_string(values[i], field);
    }
    one_line += "]";
    if (one_line.size() <= kLineLimit) {
      out_.append(one_line).append("\n");
      return;
    }
    std::vector<std::string> items;
    for (const std::string& v : values) items.push_back(toml_string(v, field));
    multiline_array(key, items);
  }
  // Items are already TOML values (strings or inline tables).
  void multiline_array(std::string_view key, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out_.append(key).append(" = [\n");
    for (const std::string& item : items) out_.append("  ").append(item).append(",\n");
    out_.append("]\n");
  }
  void key_values(const std::map<std::string, std::string>& map, std::string_view field) {
    for (const auto& [k, v] : map) string(toml_key(k, field), v, field);
  }

 private:
  std::string out_;
};

// `{ a = "x", b = 1 }`, built field by field in a fixed order.
class InlineTable {
 public:
  InlineTable& string(std::string_view key, std::string_view value, std::string_view field) {
    return raw(key, toml_string(value, field));
  }
  InlineTable& raw(std::string_view key, std::string_view value) {
    text_.append(text_.empty() ? "{ " : ", ").append(key).append(" = ").append(value);
    return *this;
  }
  std::string str() const { return text_ + " }"; }

 private:
  std::string text_;
};

void write_target(TomlWriter& w, const Target& t) {
  w.header("target");
  w.string("python", t.python, "target.python");
  w.string("platform", t.platform, "target.platform");
  w.optional_string("glibc", t.glibc, "target.glibc");
  w.optional_string("cuda_driver", t.cuda_driver, "target.cuda_driver");
  w.string_array("gpus", t.gpus, "target.gpus");
}

void write_inputs(TomlWriter& w, const Inputs& in) {
  if (in.empty()) return;
  w.blank();
  w.header("inputs");
  w.string_array("requirements", in.requirements, "inputs.requirements");
  w.optional_string("requirements_file", in.requirements_file, "inputs.requirements_file");
  w.optional_string("project_file", in.project_file, "inputs.project_file");
  w.optional_string("index_url", in.index_url, "inputs.index_url");
  w.string_array("extra_index_urls", in.extra_index_urls, "inputs.extra_index_urls");
  w.string_array("find_links", in.find_links, "inputs.find_links");
  if (in.no_index) w.raw("no_index", "true");
  w.optional_string("profile_from", in.profile_from, "inputs.profile_from");
  InlineTable from;
  bool any = false;
  const auto add = [&](std::string_view key, const std::string& value) {
    if (value.empty()) return;
    from.string(key, value, "inputs.target_from." + std::string(key));
    any = true;
  };
  add("python", in.python_from);
  add("cuda_driver", in.cuda_driver_from);
  add("gpus", in.gpus_from);
  add("platform", in.platform_from);
  add("glibc", in.glibc_from);
  if (any) w.raw("target_from", from.str());
}

void write_environment(TomlWriter& w, const Environment& e) {
  w.blank();
  w.header("environment");
  w.optional_string("cuda", e.cuda, "environment.cuda");
  if (!e.base_image.tag.empty()) {
    InlineTable image;
    image.string("tag", e.base_image.tag, "environment.base_image.tag");
    if (e.base_image.digest)
      image.string("digest", *e.base_image.digest, "environment.base_image.digest");
    w.raw("base_image", image.str());
  }
  w.optional_string("torch_cuda_arch_list", e.torch_cuda_arch_list,
                    "environment.torch_cuda_arch_list");
  if (!e.variables.empty()) {
    w.blank();
    w.header("environment.variables");
    w.key_values(e.variables, "environment.variables");
  }
}

std::string artifact_table(const Artifact& a, const std::string& field) {
  InlineTable t;
  t.string("filename", a.filename, field + ".filename");
  t.string("url", a.url, field + ".url");
  if (a.sha256) t.string("sha256", *a.sha256, field + ".sha256");
  if (a.size) t.raw("size", std::to_string(*a.size));
  return t.str();
}

std::string reason_table(const Reason& r, const std::string& field) {
  InlineTable t;
  t.raw("kind", toml_string(to_string(r.kind), field));
  t.string("text", r.text, field + ".text");
  if (r.package) t.string("package", *r.package, field + ".package");
  if (r.rule_id) t.string("rule_id", *r.rule_id, field + ".rule_id");
  if (r.source) t.string("source", *r.source, field + ".source");
  return t.str();
}

void write_package(TomlWriter& w, const Package& p, const std::string& at) {
  w.blank();
  w.array_header("package");
  w.string("name", p.name, at + ".name");
  w.string("version", p.version, at + ".version");
  w.optional_string("variant", p.variant, at + ".variant");
  InlineTable source;
  source.raw("kind", toml_string(to_string(p.source.kind), at));
  source.string("url", p.source.url, at + ".source.url");
  w.raw("source", source.str());
  if (p.markers) w.string("markers", *p.markers, at + ".markers");
  w.string_array("dependencies", p.dependencies, at + ".dependencies");
  std::vector<std::string> items;
  for (std::size_t i = 0; i < p.artifacts.size(); ++i)
    items.push_back(artifact_table(p.artifacts[i], at + ".artifacts[" + std::to_string(i) + "]"));
  w.multiline_array("artifacts", items);
  items.clear();
  for (std::size_t i = 0; i < p.why.size(); ++i)
    items.push_back(reason_table(p.why[i], at + ".why[" + std::to_string(i) + "]"));
  w.multiline_array("why", items);
}

void write_build(TomlWriter& w, const BuildStep& b, const std::string& at) {
  w.blank();
  w.array_header("build");
  w.string("name", b.name, at + ".name");
  w.string_array("after", b.after, at + ".after");
  w.optional_string("package", b.package, at + ".package");
  if (b.source) w.raw("source", artifact_table(*b.source, at + ".source"));
  if (b.vcs) w.string("vcs", *b.vcs, at + ".vcs");
  if (b.working_dir) w.string("working_dir", *b.working_dir, at + ".working_dir");
  w.optional_string("cuda_arch_list", b.cuda_arch_list, at + ".cuda_arch_list");
  std::vector<std::string> commands;
  for (const std::string& c : b.commands) commands.push_back(toml_string(c, at + ".commands"));
  w.multiline_array("commands", commands);
  if (!b.env.empty()) {
    // A sub-table header after `[[build]]` belongs to the build element just opened.
    w.blank();
    w.header("build.env");
    w.key_values(b.env, at + ".env");
  }
}

void write_rule(TomlWriter& w, const AppliedRule& r, const std::string& at) {
  w.blank();
  w.array_header("rule");
  w.string("id", r.id, at + ".id");
  w.optional_string("failure", r.failure, at + ".failure");
  w.string("effect", r.effect, at + ".effect");
  if (r.symptom) w.string("symptom", *r.symptom, at + ".symptom");
  w.string("source", r.source, at + ".source");
}

// The canonical text in two parts: the header up to `input_hash`, and the rest. The content
// hash goes between them, computed over both.
std::pair<std::string, std::string> canonical_parts(const Lockfile& lock) {
  TomlWriter head;
  head.comment("This file is generated by bevenv; do not edit it by hand.");
  head.comment(
      "Regenerate it with `bevenv lock`; `bevenv lock --check` tells whether it is current.");
  head.integer("schema_version", lock.schema_version);
  head.string("generator", lock.generator, "generator");
  head.string("matrix_version", lock.matrix_version, "matrix_version");
  head.string("input_hash", lock.input_hash, "input_hash");
  TomlWriter w;
  w.optional_string("profile", lock.profile, "profile");

  w.blank();
  write_target(w, lock.target);
  write_inputs(w, lock.inputs);
  write_environment(w, lock.environment);
  for (std::size_t i = 0; i < lock.packages.size(); ++i)
    write_package(w, lock.packages[i], "package[" + std::to_string(i) + "]");
  for (std::size_t i = 0; i < lock.builds.size(); ++i)
    write_build(w, lock.builds[i], "build[" + std::to_string(i) + "]");
  for (std::size_t i = 0; i < lock.rules_applied.size(); ++i)
    write_rule(w, lock.rules_applied[i], "rule[" + std::to_string(i) + "]");
  return {head.take(), w.take()};
}

std::string digest_of(const std::string& head, const std::string& body) {
  core::Sha256 hasher;
  hasher.update(head);
  hasher.update(body);
  return "sha256:" + hasher.hex_digest();
}

}  // namespace

std::string to_toml(const Lockfile& model) {
  const Lockfile lock = canonical(model);
  const std::vector<Problem> problems = validate(lock);
  if (!problems.empty()) {
    std::vector<std::string> causes;
    for (const Problem& p : problems) causes.push_back("`" + p.field + "`: " + p.message);
    throw core::Error(core::ExitCode::failure,
                      "internal error: the lockfile model is inconsistent (" +
                          std::to_string(problems.size()) + " problem" +
                          (problems.size() == 1 ? "" : "s") + ")",
                      "report this as a bug in bevenv", std::move(causes));
  }
  const auto [head, body] = canonical_parts(lock);
  return head + "content_hash = \"" + digest_of(head, body) + "\"\n" + body;
}

std::string content_hash(const Lockfile& model) {
  const auto [head, body] = canonical_parts(canonical(model));
  return digest_of(head, body);
}

void write_lockfile(const std::filesystem::path& path, const Lockfile& lock) {
  core::write_file_atomic(path, to_toml(lock));
}

}  // namespace bevenv::lockfiles
