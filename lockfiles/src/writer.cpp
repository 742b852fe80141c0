#include "bevenv/lockfiles/writer.hpp"

#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/core/sha256.hpp"
#include "content_digest.hpp"
#include "toml_text.hpp"

namespace bevenv::lockfiles {
namespace {

using detail::field_of;
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
  // `[name]`; `table` names its values (default: `name`; `build[2].env` for a `[build.env]`).
  void header(std::string_view name, std::string table = {}) {
    out_.append("[").append(name).append("]\n");
    table_ = table.empty() ? std::string(name) : std::move(table);
  }
  // `[[name]]`, one element of the array: `table` names its values (`package[3]`).
  void array_header(std::string_view name, std::string table) {
    out_.append("[[").append(name).append("]]\n");
    table_ = std::move(table);
  }
  std::string field(std::string_view key) const { return field_of(table_, key); }

  void string(std::string_view key, std::string_view value) {
    out_.append(key).append(" = ").append(toml_string(value, table_, key)).append("\n");
  }
  void optional_string(std::string_view key, std::string_view value) {
    if (!value.empty()) string(key, value);
  }
  void integer(std::string_view key, long long value) { raw(key, std::to_string(value)); }
  void raw(std::string_view key, std::string_view value) {
    out_.append(key).append(" = ").append(value).append("\n");
  }
  void string_array(std::string_view key, const std::vector<std::string>& values) {
    if (values.empty()) return;
    const std::string field = this->field(key);
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
  // The keys of a map are data, not names of the schema: errors name the table.
  void key_values(const std::map<std::string, std::string>& map) {
    for (const auto& [k, v] : map) {
      out_.append(toml_key(k, table_)).append(" = ").append(toml_string(v, table_)).append("\n");
    }
  }

 private:
  std::string out_;
  std::string table_;
};

// `{ a = "x", b = 1 }`, built field by field in a fixed order.
class InlineTable {
 public:
  explicit InlineTable(std::string table) : table_(std::move(table)) {}
  InlineTable& string(std::string_view key, std::string_view value) {
    return raw(key, toml_string(value, table_, key));
  }
  InlineTable& raw(std::string_view key, std::string_view value) {
    text_.append(text_.empty() ? "{ " : ", ").append(key).append(" = ").append(value);
    return *this;
  }
  bool empty() const { return text_.empty(); }
  std::string str() const { return text_ + " }"; }

 private:
  std::string table_;
  std::string text_;
};

// A key of a plain table (`[target]`, `[inputs]`) and the member of `Table` that holds its
// value; the member's type says how the value is written. A key whose value is empty (or false)
// is left out, unless the reader requires it (`required`, for strings only).
template <typename Table>
struct Key {
  std::string_view name;
  std::variant<std::string Table::*, std::vector<std::string> Table::*, bool Table::*> member;
  bool required = false;
};

void write_value(TomlWriter& w, std::string_view key, const std::string& value, bool required) {
  if (required) {
    w.string(key, value);
  } else {
    w.optional_string(key, value);
  }
}
void write_value(TomlWriter& w, std::string_view key, const std::vector<std::string>& values,
                 bool /*required*/) {
  w.string_array(key, values);
}
void write_value(TomlWriter& w, std::string_view key, bool value, bool /*required*/) {
  if (value) w.raw(key, "true");
}

// Writes `keys` in the array's order, which is their order in the lockfile's bytes. One loop for
// every plain table, so that each table is only its list of keys.
template <typename Table, std::size_t N>
void write_keys(TomlWriter& w, const Table& table, const Key<Table> (&keys)[N]) {
  for (const Key<Table>& key : keys) {
    std::visit([&](auto member) { write_value(w, key.name, table.*member, key.required); },
               key.member);
  }
}

// The reader requires `python` and `platform`; the rest may be unknown.
constexpr Key<Target> kTargetKeys[] = {
    {"python", &Target::python, true}, {"platform", &Target::platform, true},
    {"glibc", &Target::glibc},         {"cuda_driver", &Target::cuda_driver},
    {"gpus", &Target::gpus},
};

// Each input is written only when `lock` was given it. `target_from` follows them, an inline
// table of its own (write_inputs).
constexpr Key<Inputs> kInputKeys[] = {
    {"requirements", &Inputs::requirements},
    {"requirements_file", &Inputs::requirements_file},
    {"project_file", &Inputs::project_file},
    {"index_url", &Inputs::index_url},
    {"extra_index_urls", &Inputs::extra_index_urls},
    {"find_links", &Inputs::find_links},
    {"no_index", &Inputs::no_index},
    {"profile_from", &Inputs::profile_from},
};

void write_target(TomlWriter& w, const Target& t) {
  w.header("target");
  write_keys(w, t, kTargetKeys);
}

void write_inputs(TomlWriter& w, const Inputs& in) {
  if (in.empty()) return;
  w.blank();
  w.header("inputs");
  write_keys(w, in, kInputKeys);
  InlineTable from(w.field("target_from"));
  const auto add = [&from](std::string_view key, const std::string& value) {
    if (!value.empty()) from.string(key, value);
  };
  add("python", in.python_from);
  add("cuda_driver", in.cuda_driver_from);
  add("gpus", in.gpus_from);
  add("platform", in.platform_from);
  add("glibc", in.glibc_from);
  if (!from.empty()) w.raw("target_from", from.str());
}

void write_environment(TomlWriter& w, const Environment& e) {
  w.blank();
  w.header("environment");
  w.optional_string("cuda", e.cuda);
  if (!e.base_image.tag.empty()) {
    InlineTable image(w.field("base_image"));
    image.string("tag", e.base_image.tag);
    if (e.base_image.digest) image.string("digest", *e.base_image.digest);
    w.raw("base_image", image.str());
  }
  w.optional_string("torch_cuda_arch_list", e.torch_cuda_arch_list);
  if (!e.variables.empty()) {
    w.blank();
    w.header("environment.variables");
    w.key_values(e.variables);
  }
}

std::string artifact_table(const Artifact& a, const std::string& field) {
  InlineTable t(field);
  t.string("filename", a.filename);
  t.string("url", a.url);
  if (a.sha256) t.string("sha256", *a.sha256);
  if (a.size) t.raw("size", std::to_string(*a.size));
  return t.str();
}

std::string reason_table(const Reason& r, const std::string& field) {
  InlineTable t(field);
  t.string("kind", to_string(r.kind));
  t.string("text", r.text);
  if (r.package) t.string("package", *r.package);
  if (r.rule_id) t.string("rule_id", *r.rule_id);
  if (r.source) t.string("source", *r.source);
  return t.str();
}

// `key = [...]` of inline tables, one per element: `table(element, "key[i]")`.
template <typename T, typename Table>
void write_tables(TomlWriter& w, std::string_view key, const std::vector<T>& elements,
                  Table table) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    items.push_back(table(elements[i], w.field(std::string(key) + "[" + std::to_string(i) + "]")));
  }
  w.multiline_array(key, items);
}

void write_package(TomlWriter& w, const Package& p) {
  w.string("name", p.name);
  w.string("version", p.version);
  w.optional_string("variant", p.variant);
  InlineTable source(w.field("source"));
  source.string("kind", to_string(p.source.kind));
  source.string("url", p.source.url);
  w.raw("source", source.str());
  if (p.markers) w.string("markers", *p.markers);
  w.string_array("dependencies", p.dependencies);
  write_tables(w, "artifacts", p.artifacts, artifact_table);
  write_tables(w, "why", p.why, reason_table);
}

void write_build(TomlWriter& w, const BuildStep& b) {
  w.string("name", b.name);
  w.string_array("after", b.after);
  w.optional_string("package", b.package);
  if (b.source) w.raw("source", artifact_table(*b.source, w.field("source")));
  if (b.vcs) w.string("vcs", *b.vcs);
  if (b.working_dir) w.string("working_dir", *b.working_dir);
  w.optional_string("cuda_arch_list", b.cuda_arch_list);
  std::vector<std::string> commands;
  for (const std::string& c : b.commands) commands.push_back(toml_string(c, w.field("commands")));
  w.multiline_array("commands", commands);
  if (!b.env.empty()) {
    // A sub-table header after `[[build]]` belongs to the build element just opened.
    w.blank();
    w.header("build.env", w.field("env"));
    w.key_values(b.env);
  }
}

void write_rule(TomlWriter& w, const AppliedRule& r) {
  w.string("id", r.id);
  w.optional_string("failure", r.failure);
  w.string("effect", r.effect);
  if (r.symptom) w.string("symptom", *r.symptom);
  w.string("source", r.source);
}

// `[[name]]` and `write`'s keys for each element, after a blank line; the element's values are
// named `name[i].key` in errors. One loop for packages, builds and rules, so that their
// functions write only their own keys.
template <typename Element>
void write_array_of_tables(TomlWriter& w, std::string_view name,
                           const std::vector<Element>& elements,
                           void (*write)(TomlWriter&, const Element&)) {
  for (std::size_t i = 0; i < elements.size(); ++i) {
    w.blank();
    w.array_header(name, std::string(name) + "[" + std::to_string(i) + "]");
    write(w, elements[i]);
  }
}

// The canonical text in two parts: the header up to `input_hash`, and the rest. The content
// hash goes between them, computed over both.
std::pair<std::string, std::string> canonical_parts(const Lockfile& lock) {
  TomlWriter head;
  head.comment("This file is generated by bevenv; do not edit it by hand.");
  head.comment(
      "Regenerate it with `bevenv lock`; `bevenv lock --check` tells whether it is current.");
  head.integer("schema_version", lock.schema_version);
  head.string("generator", lock.generator);
  head.string("matrix_version", lock.matrix_version);
  head.string("input_hash", lock.input_hash);
  TomlWriter w;
  w.optional_string("profile", lock.profile);

  w.blank();
  write_target(w, lock.target);
  write_inputs(w, lock.inputs);
  write_environment(w, lock.environment);
  write_array_of_tables(w, "package", lock.packages, write_package);
  write_array_of_tables(w, "build", lock.builds, write_build);
  write_array_of_tables(w, "rule", lock.rules_applied, write_rule);
  return {head.take(), w.take()};
}

}  // namespace

namespace detail {

std::string content_digest(std::string_view head, std::string_view body) {
  core::Sha256 hasher;
  hasher.update(head);
  hasher.update(body);
  return "sha256:" + hasher.hex_digest();
}

}  // namespace detail

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
  return head + "content_hash = \"" + detail::content_digest(head, body) + "\"\n" + body;
}

std::string content_hash(const Lockfile& model) {
  const auto [head, body] = canonical_parts(canonical(model));
  return detail::content_digest(head, body);
}

void write_lockfile(const std::filesystem::path& path, const Lockfile& lock) {
  core::write_file_if_changed(path, to_toml(lock));
}

}  // namespace bevenv::lockfiles
