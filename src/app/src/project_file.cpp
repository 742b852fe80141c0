#include "bevenv/app/project_file.hpp"

#include <toml++/toml.h>

#include <map>
#include <set>
#include <sstream>

#include "bevenv/core/closest.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/core/requirement.hpp"
#include "bevenv/core/text_input.hpp"
#include "bevenv/core/toml_nesting.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

std::string where(const std::filesystem::path& path, const toml::source_region& region) {
  return path.string() + ":" + std::to_string(region.begin.line) + ":" +
         std::to_string(region.begin.column);
}

[[noreturn]] void fail(const std::filesystem::path& path, const toml::node& node,
                       const std::string& field, const std::string& expected) {
  throw Error(ExitCode::bad_input,
              where(path, node.source()) + ": `" + field + "`: expected " + expected,
              "see docs/project-file.md for the fields of `bevenv.toml`");
}

// The keys of each table of `bevenv.toml`; "" is the top level.
const std::map<std::string, std::set<std::string>>& known_keys() {
  static const std::map<std::string, std::set<std::string>> keys = {
      {"", {"project", "target"}},
      {"project", {"profile", "lockfile", "requirements", "requirements-file"}},
      {"target", {"python", "cuda-driver", "gpus", "platform", "glibc"}}};
  return keys;
}

// Where an unknown key most likely belongs: another table that has it, a key here it is a slip
// of (`cuda_driver`), else the list of this table's keys.
std::string unknown_key_hint(const std::string& table, const std::string& key) {
  for (const auto& [other, keys] : known_keys()) {
    if (other != table && !other.empty() && keys.count(key) != 0)
      return "`" + key + "` belongs in `[" + other + "]`";
  }
  const std::set<std::string>& here = known_keys().at(table);
  const std::string near = core::closest(key, {here.begin(), here.end()});
  if (!near.empty()) return "did you mean `" + near + "`?";
  std::string list;
  for (const auto& k : here) list += (list.empty() ? "`" : ", `") + k + "`";
  return "known keys here: " + list;
}

void reject_unknown_keys(const std::filesystem::path& path, const toml::table& values,
                         const std::string& table) {
  const std::set<std::string>& known = known_keys().at(table);
  const std::string prefix = table.empty() ? "" : table + ".";
  for (const auto& [key, node] : values) {
    const std::string name(key.str());
    if (known.count(name) == 0) {
      throw Error(ExitCode::bad_input,
                  where(path, key.source()) + ": unknown key `" + prefix + name + "`",
                  unknown_key_hint(table, name));
    }
  }
}

std::optional<std::string> string_field(const std::filesystem::path& path, const toml::table& t,
                                        const std::string& prefix, const char* key) {
  const toml::node* node = t.get(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_string()) fail(path, *node, prefix + key, "a string");
  return node->value<std::string>();
}

std::vector<std::string> string_list(const std::filesystem::path& path, const toml::table& t,
                                     const std::string& prefix, const char* key) {
  std::vector<std::string> out;
  const toml::node* node = t.get(key);
  if (node == nullptr) return out;
  if (!node->is_array()) fail(path, *node, prefix + key, "an array of strings");
  for (const auto& item : *node->as_array()) {
    if (!item.is_string()) fail(path, item, prefix + key, "an array of strings");
    out.push_back(*item.value<std::string>());
  }
  return out;
}

void check_requirements(const std::filesystem::path& path, const toml::table& project) {
  const toml::node* node = project.get("requirements");
  if (node == nullptr || !node->is_array()) return;
  for (const auto& item : *node->as_array()) {
    const auto text = item.value<std::string>();
    if (!text) continue;
    const auto parsed = core::Requirement::parse(*text);
    if (!parsed) {
      throw Error(ExitCode::bad_input,
                  where(path, item.source()) + ": `project.requirements`: invalid requirement `" +
                      *text + "`: " + parsed.error().to_string(),
                  "write a PEP 508 requirement such as `nuscenes-devkit==1.1.9`");
    }
  }
}

}  // namespace

ProjectFile read_project_file(const std::filesystem::path& path) {
  const std::string text = core::read_regular_file(path, "pass a `bevenv.toml` project file");
  if (const auto deep = core::check_toml_nesting(text)) {
    throw Error(ExitCode::bad_input,
                path.string() + ":" + std::to_string(deep->line) + ":" +
                    std::to_string(deep->column) + ": " + deep->message,
                "see docs/project-file.md for the fields of `bevenv.toml`");
  }
  toml::table root;
  try {
    root = toml::parse(text, path.string());
  } catch (const toml::parse_error& e) {
    throw Error(ExitCode::bad_input,
                where(path, e.source()) + ": invalid TOML: " + std::string(e.description()),
                "fix the syntax at that position");
  }
  reject_unknown_keys(path, root, "");
  ProjectFile project;
  project.path = path;
  const auto base = path.parent_path();
  if (const toml::node* node = root.get("project")) {
    if (!node->is_table()) fail(path, *node, "project", "a table");
    const toml::table& t = *node->as_table();
    reject_unknown_keys(path, t, "project");
    project.profile = string_field(path, t, "project.", "profile");
    if (auto lock = string_field(path, t, "project.", "lockfile")) project.lockfile = base / *lock;
    project.requirements = string_list(path, t, "project.", "requirements");
    check_requirements(path, t);
    if (auto file = string_field(path, t, "project.", "requirements-file")) {
      project.requirements_file = base / *file;
    }
  }
  if (const toml::node* node = root.get("target")) {
    if (!node->is_table()) fail(path, *node, "target", "a table");
    const toml::table& t = *node->as_table();
    reject_unknown_keys(path, t, "target");
    project.target.python = string_field(path, t, "target.", "python");
    project.target.cuda_driver = string_field(path, t, "target.", "cuda-driver");
    project.target.gpus = string_list(path, t, "target.", "gpus");
    project.target.platform = string_field(path, t, "target.", "platform");
    project.target.glibc = string_field(path, t, "target.", "glibc");
  }
  return project;
}

std::vector<std::string> read_requirements_file(const std::filesystem::path& path) {
  std::istringstream in(core::read_regular_file(path, "pass a requirements file"));
  std::vector<std::string> out;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto comment = line.find(" #");
    if (comment != std::string::npos) line.erase(comment);
    if (!line.empty() && line[0] == '#') line.clear();
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    const std::string at = path.string() + ":" + std::to_string(number);
    if (line[0] == '-') {
      throw Error(ExitCode::bad_input, at + ": pip option `" + line + "` is not supported here",
                  "list plain PEP 508 requirements; indexes come from the matrix profile");
    }
    const auto parsed = core::Requirement::parse(line);
    if (!parsed) {
      throw Error(ExitCode::bad_input,
                  at + ": invalid requirement `" + line + "`: " + parsed.error().to_string(),
                  "write a PEP 508 requirement such as `numpy<1.24`");
    }
    out.push_back(line);
  }
  return out;
}

std::filesystem::path default_lockfile(const std::optional<std::filesystem::path>& project_file) {
  std::error_code error;
  if (!project_file && !std::filesystem::exists("bevenv.toml", error)) return "bevenv.lock";
  const ProjectFile project = read_project_file(project_file.value_or("bevenv.toml"));
  return project.lockfile.value_or("bevenv.lock");
}

}  // namespace bevenv::app
