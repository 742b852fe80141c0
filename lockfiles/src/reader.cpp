#include "bevenv/lockfiles/reader.hpp"

#include <toml++/toml.h>

#include <initializer_list>
#include <map>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/core/text_input.hpp"
#include "bevenv/core/toml_nesting.hpp"
#include "bevenv/util/toml_words.hpp"

namespace bevenv::lockfiles {
namespace {

constexpr std::string_view kEditedHint =
    "lockfiles are written by `bevenv lock`: re-create it with `bevenv lock` rather than editing "
    "it (the format is described in docs/lockfile-format.md)";

struct Failure {
  toml::source_position where;
  std::string message;
  std::string hint;
};

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string indexed(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string code(std::string_view s) { return "`" + std::string(s) + "`"; }

class Reader {
 public:
  Lockfile read(const toml::table& root) {
    read_schema_version(root);
    check_keys(root, "",
               {"schema_version", "generator", "matrix_version", "input_hash", "content_hash",
                "profile", "target", "inputs", "environment", "package", "build", "rule"});
    Lockfile lock;
    lock.generator = required_string(root, "generator", "");
    lock.matrix_version = required_string(root, "matrix_version", "");
    lock.input_hash = required_string(root, "input_hash", "");
    read_content_hash(root);
    lock.profile = optional_string(root, "profile", "").value_or("");
    lock.target = read_target(required_table(root, "target", ""));
    if (const toml::table* inputs = optional_table(root, "inputs", ""))
      lock.inputs = read_inputs(*inputs);
    if (const toml::table* env = optional_table(root, "environment", ""))
      lock.environment = read_environment(*env);
    for_each_table(root, "package", "", [&](const toml::table& t, const std::string& at) {
      lock.packages.push_back(read_package(t, at));
    });
    for_each_table(root, "build", "", [&](const toml::table& t, const std::string& at) {
      lock.builds.push_back(read_build(t, at));
    });
    for_each_table(root, "rule", "", [&](const toml::table& t, const std::string& at) {
      lock.rules_applied.push_back(read_rule(t, at));
    });
    return lock;
  }

  // Where the file says `field` (or the nearest enclosing field that was recorded).
  toml::source_position position_of(std::string field) const {
    while (!field.empty()) {
      if (const auto it = positions_.find(field); it != positions_.end()) return it->second;
      const std::size_t cut = field.find_last_of(".[");
      if (cut == std::string::npos) break;
      field.resize(cut);
    }
    return toml::source_position{1, 1};
  }

 private:
  [[noreturn]] static void fail(const toml::source_region& where, std::string message,
                                std::string_view hint = kEditedHint) {
    throw Failure{where.begin, std::move(message), std::string(hint)};
  }

  void note(const std::string& field, const toml::node& node) {
    positions_.emplace(field, node.source().begin);
  }

  void read_schema_version(const toml::table& root) {
    const toml::node* node = root.get("schema_version");
    if (node == nullptr)
      fail(root.source(), "missing `schema_version` (expected an integer)",
           "is this a bevenv lockfile? Create one with `bevenv lock`");
    const auto* value = node->as_integer();
    if (value == nullptr)
      fail(node->source(), "`schema_version`: expected an integer, found " +
                               std::string(util::toml_type_name(node->type())));
    const std::int64_t version = value->get();
    if (version > kSchemaVersion)
      fail(node->source(),
           "lockfile schema " + std::to_string(version) + " is newer than this bevenv supports (" +
               std::to_string(kSchemaVersion) + ")",
           "upgrade bevenv to read it, or re-create it with this bevenv: `bevenv lock`");
    if (version < kSchemaVersion)
      fail(node->source(), "`schema_version`: expected " + std::to_string(kSchemaVersion) +
                               ", found " + std::to_string(version));
    note("schema_version", *node);
  }

  void check_keys(const toml::table& table, const std::string& path,
                  std::initializer_list<std::string_view> allowed) {
    for (const auto& [key, node] : table) {
      bool known = false;
      for (std::string_view a : allowed) known = known || key.str() == a;
      if (known) continue;
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + code(a);
      fail(key.source(),
           "unknown key " + code(key.str()) +
               (path.empty() ? " at the top level" : " in " + code(path)),
           "the keys allowed there are " + list + "; " + std::string(kEditedHint));
    }
  }

  const toml::node& required(const toml::table& t, std::string_view key, const std::string& path,
                             std::string_view expected) {
    const toml::node* node = t.get(key);
    if (node == nullptr)
      fail(t.source(),
           code(join(path, key)) + " is missing (expected " + std::string(expected) + ")");
    return *node;
  }

  [[noreturn]] void wrong_type(const toml::node& node, const std::string& field,
                               std::string_view expected) {
    fail(node.source(), code(field) + ": expected " + std::string(expected) + ", found " +
                            std::string(util::toml_type_name(node.type())));
  }

  std::string string_value(const toml::node& node, const std::string& field) {
    const auto* value = node.as_string();
    if (value == nullptr) wrong_type(node, field, "a string");
    if (value->get().empty()) fail(node.source(), code(field) + ": expected a non-empty string");
    note(field, node);
    return value->get();
  }

  std::string required_string(const toml::table& t, std::string_view key, const std::string& path) {
    return string_value(required(t, key, path, "a string"), join(path, key));
  }

  std::optional<std::string> optional_string(const toml::table& t, std::string_view key,
                                             const std::string& path) {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    return string_value(*node, join(path, key));
  }

  const toml::table& table_value(const toml::node& node, const std::string& field) {
    const toml::table* table = node.as_table();
    if (table == nullptr) wrong_type(node, field, "a table");
    note(field, node);
    return *table;
  }

  const toml::table& required_table(const toml::table& t, std::string_view key,
                                    const std::string& path) {
    return table_value(required(t, key, path, "a table"), join(path, key));
  }

  const toml::table* optional_table(const toml::table& t, std::string_view key,
                                    const std::string& path) {
    const toml::node* node = t.get(key);
    return node == nullptr ? nullptr : &table_value(*node, join(path, key));
  }

  const toml::array* optional_array(const toml::table& t, std::string_view key,
                                    const std::string& path, std::string_view expected) {
    const toml::node* node = t.get(key);
    if (node == nullptr) return nullptr;
    const toml::array* array = node->as_array();
    if (array == nullptr) wrong_type(*node, join(path, key), expected);
    note(join(path, key), *node);
    return array;
  }

  std::vector<std::string> string_list(const toml::table& t, std::string_view key,
                                       const std::string& path) {
    std::vector<std::string> out;
    const toml::array* array = optional_array(t, key, path, "an array of strings");
    if (array == nullptr) return out;
    for (std::size_t i = 0; i < array->size(); ++i)
      out.push_back(string_value(*array->get(i), indexed(join(path, key), i)));
    return out;
  }

  template <class Fn>
  void for_each_table(const toml::table& t, std::string_view key, const std::string& path,
                      Fn&& fn) {
    const toml::array* array = optional_array(t, key, path, "an array of tables");
    if (array == nullptr) return;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const std::string at = indexed(join(path, key), i);
      fn(table_value(*array->get(i), at), at);
    }
  }

  std::map<std::string, std::string> string_map(const toml::table& t, std::string_view key,
                                                const std::string& path) {
    std::map<std::string, std::string> out;
    const toml::table* table = optional_table(t, key, path);
    if (table == nullptr) return out;
    for (const auto& [k, node] : *table)
      out.emplace(std::string(k.str()), string_value(node, join(join(path, key), k.str())));
    return out;
  }

  Target read_target(const toml::table& t) {
    check_keys(t, "target", {"python", "platform", "glibc", "cuda_driver", "gpus"});
    Target target;
    target.python = required_string(t, "python", "target");
    target.platform = required_string(t, "platform", "target");
    target.glibc = optional_string(t, "glibc", "target").value_or("");
    target.cuda_driver = optional_string(t, "cuda_driver", "target").value_or("");
    target.gpus = string_list(t, "gpus", "target");
    return target;
  }

  // The writer's digest of the rest of the file: its form is checked here; whether the content
  // still hashes to it is for the commands that refuse edited locks (build-image, sync).
  void read_content_hash(const toml::table& root) {
    const auto hash = optional_string(root, "content_hash", "");
    if (!hash) return;
    const bool hex = hash->size() == 71 && hash->rfind("sha256:", 0) == 0 &&
                     hash->find_first_not_of("0123456789abcdef", 7) == std::string::npos;
    if (!hex) {
      fail(
          root.get("content_hash")->source(),
          "`content_hash`: expected `sha256:` and 64 lower-case hex digits, found `" + *hash + "`");
    }
  }

  Inputs read_inputs(const toml::table& t) {
    check_keys(t, "inputs",
               {"requirements", "requirements_file", "project_file", "index_url",
                "extra_index_urls", "find_links", "no_index", "profile_from", "target_from"});
    Inputs in;
    in.requirements = string_list(t, "requirements", "inputs");
    in.requirements_file = optional_string(t, "requirements_file", "inputs").value_or("");
    in.project_file = optional_string(t, "project_file", "inputs").value_or("");
    in.index_url = optional_string(t, "index_url", "inputs").value_or("");
    in.extra_index_urls = string_list(t, "extra_index_urls", "inputs");
    in.find_links = string_list(t, "find_links", "inputs");
    if (const toml::node* node = t.get("no_index")) {
      const auto* value = node->as_boolean();
      if (value == nullptr) wrong_type(*node, "inputs.no_index", "a boolean");
      note("inputs.no_index", *node);
      in.no_index = value->get();
    }
    in.profile_from = optional_string(t, "profile_from", "inputs").value_or("");
    if (const toml::table* from = optional_table(t, "target_from", "inputs")) {
      check_keys(*from, "inputs.target_from",
                 {"python", "cuda_driver", "gpus", "platform", "glibc"});
      in.python_from = optional_string(*from, "python", "inputs.target_from").value_or("");
      in.cuda_driver_from =
          optional_string(*from, "cuda_driver", "inputs.target_from").value_or("");
      in.gpus_from = optional_string(*from, "gpus", "inputs.target_from").value_or("");
      in.platform_from = optional_string(*from, "platform", "inputs.target_from").value_or("");
      in.glibc_from = optional_string(*from, "glibc", "inputs.target_from").value_or("");
    }
    return in;
  }

  Environment read_environment(const toml::table& t) {
    check_keys(t, "environment", {"cuda", "base_image", "torch_cuda_arch_list", "variables"});
    Environment env;
    env.cuda = optional_string(t, "cuda", "environment").value_or("");
    if (const toml::table* image = optional_table(t, "base_image", "environment")) {
      check_keys(*image, "environment.base_image", {"tag", "digest"});
      env.base_image.tag = required_string(*image, "tag", "environment.base_image");
      env.base_image.digest = optional_string(*image, "digest", "environment.base_image");
    }
    env.torch_cuda_arch_list =
        optional_string(t, "torch_cuda_arch_list", "environment").value_or("");
    env.variables = string_map(t, "variables", "environment");
    return env;
  }

  template <class Kind>
  Kind kind_value(const toml::table& t, const std::string& path,
                  std::optional<Kind> (*parse)(std::string_view),
                  std::initializer_list<std::string_view> names) {
    const std::string text = required_string(t, "kind", path);
    if (const std::optional<Kind> kind = parse(text)) return *kind;
    std::string list;
    for (std::string_view n : names) list += (list.empty() ? "" : ", ") + code(n);
    fail(t.get("kind")->source(),
         code(join(path, "kind")) + ": expected one of " + list + ", found " + code(text));
  }

  Package read_package(const toml::table& t, const std::string& at) {
    check_keys(
        t, at,
        {"name", "version", "variant", "source", "markers", "dependencies", "artifacts", "why"});
    Package p;
    p.name = required_string(t, "name", at);
    p.version = required_string(t, "version", at);
    p.variant = optional_string(t, "variant", at).value_or("");
    const toml::table& source = required_table(t, "source", at);
    check_keys(source, at + ".source", {"kind", "url"});
    p.source.kind = kind_value<SourceKind>(source, at + ".source", source_kind_from_string,
                                           {"index", "find-links", "path", "pypi"});
    p.source.url = required_string(source, "url", at + ".source");
    p.markers = optional_string(t, "markers", at);
    p.dependencies = string_list(t, "dependencies", at);
    for_each_table(t, "artifacts", at, [&](const toml::table& a, const std::string& aat) {
      p.artifacts.push_back(read_artifact(a, aat));
    });
    for_each_table(t, "why", at, [&](const toml::table& r, const std::string& rat) {
      p.why.push_back(read_reason(r, rat));
    });
    return p;
  }

  Artifact read_artifact(const toml::table& t, const std::string& at) {
    check_keys(t, at, {"filename", "url", "sha256", "size"});
    Artifact a;
    a.filename = required_string(t, "filename", at);
    a.url = required_string(t, "url", at);
    a.sha256 = optional_string(t, "sha256", at);
    if (const toml::node* node = t.get("size")) {
      const auto* size = node->as_integer();
      if (size == nullptr) wrong_type(*node, at + ".size", "a size in bytes");
      if (size->get() < 0)
        fail(node->source(), code(at + ".size") + ": expected a size in bytes, found " +
                                 std::to_string(size->get()));
      note(at + ".size", *node);
      a.size = static_cast<std::uint64_t>(size->get());
    }
    return a;
  }

  Reason read_reason(const toml::table& t, const std::string& at) {
    check_keys(t, at, {"kind", "text", "package", "rule_id", "source"});
    Reason r;
    r.kind = kind_value<ReasonKind>(
        t, at, reason_kind_from_string,
        {"requested", "required-by", "rule", "preferred", "observed", "target"});
    r.text = required_string(t, "text", at);
    r.package = optional_string(t, "package", at);
    r.rule_id = optional_string(t, "rule_id", at);
    r.source = optional_string(t, "source", at);
    return r;
  }

  BuildStep read_build(const toml::table& t, const std::string& at) {
    check_keys(t, at,
               {"name", "after", "package", "source", "vcs", "working_dir", "cuda_arch_list",
                "commands", "env"});
    BuildStep b;
    b.name = required_string(t, "name", at);
    b.after = string_list(t, "after", at);
    b.package = optional_string(t, "package", at).value_or("");
    if (const toml::table* source = optional_table(t, "source", at))
      b.source = read_artifact(*source, at + ".source");
    b.working_dir = optional_string(t, "working_dir", at);
    b.cuda_arch_list = optional_string(t, "cuda_arch_list", at).value_or("");
    b.vcs = optional_string(t, "vcs", at);
    if (!b.source && !b.vcs) required(t, "commands", at, "an array of strings");
    b.commands = string_list(t, "commands", at);
    b.env = string_map(t, "env", at);
    return b;
  }

  AppliedRule read_rule(const toml::table& t, const std::string& at) {
    check_keys(t, at, {"id", "failure", "effect", "symptom", "source"});
    AppliedRule r;
    r.id = required_string(t, "id", at);
    r.failure = optional_string(t, "failure", at).value_or("");
    r.effect = required_string(t, "effect", at);
    r.symptom = optional_string(t, "symptom", at);
    r.source = required_string(t, "source", at);
    return r;
  }

  std::map<std::string, toml::source_position> positions_;
};

ReadError make_error(std::string_view file, toml::source_position where, std::string message,
                     std::string hint) {
  return ReadError{std::string(file), where.line == 0 ? 1 : where.line,
                   where.column == 0 ? 1 : where.column, std::move(message), std::move(hint)};
}

}  // namespace

std::string ReadError::to_string() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

core::Expected<Lockfile, ReadError> parse_lockfile(std::string_view text, std::string_view file) {
  if (const auto deep = core::check_toml_nesting(text)) {
    return core::unexpected(ReadError{std::string(file), deep->line, deep->column, deep->message,
                                      std::string(kEditedHint)});
  }
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    return core::unexpected(make_error(file, e.source().begin,
                                       "not valid TOML: " + std::string(e.description()),
                                       std::string(kEditedHint)));
  }
  Reader reader;
  try {
    Lockfile lock = reader.read(root);
    const std::vector<Problem> problems = validate(lock);
    if (!problems.empty()) {
      const Problem& first = problems.front();
      return core::unexpected(make_error(file, reader.position_of(first.field),
                                         code(first.field) + ": " + first.message,
                                         std::string(kEditedHint)));
    }
    canonicalize(lock);
    return lock;
  } catch (const Failure& f) {
    return core::unexpected(make_error(file, f.where, f.message, f.hint));
  }
}

std::string read_lockfile_text(const std::filesystem::path& path) {
  return core::read_regular_file(path, "pass a lockfile written by `bevenv lock`");
}

Lockfile parse_lockfile_or_throw(std::string_view text, const std::filesystem::path& path) {
  auto result = parse_lockfile(text, path.string());
  if (!result)
    throw core::Error(core::ExitCode::bad_input, result.error().to_string(), result.error().hint);
  return std::move(result).value();
}

Lockfile read_lockfile(const std::filesystem::path& path) {
  return parse_lockfile_or_throw(read_lockfile_text(path), path);
}

}  // namespace bevenv::lockfiles
