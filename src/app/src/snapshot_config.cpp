#include "snapshot_config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"

namespace bevenv::app {
namespace {

using core::Error;
using core::ExitCode;

constexpr const char* kHint = "see docs/matrix-snapshot.md for the keys of `matrix/snapshot.toml`";

std::string where(const std::filesystem::path& path, const toml::source_region& region) {
  return path.string() + ":" + std::to_string(region.begin.line) + ":" +
         std::to_string(region.begin.column);
}

[[noreturn]] void fail(const std::filesystem::path& path, const toml::node& node,
                       const std::string& field, const std::string& problem) {
  throw Error(ExitCode::bad_input, where(path, node.source()) + ": `" + field + "`: " + problem,
              kHint);
}

std::optional<std::vector<std::string>> strings(const std::filesystem::path& path,
                                                const toml::table& table, const char* key) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_array()) fail(path, *node, key, "expected an array of strings");
  std::vector<std::string> out;
  for (const auto& item : *node->as_array()) {
    if (!item.is_string()) fail(path, item, key, "expected an array of strings");
    out.push_back(*item.value<std::string>());
  }
  return out;
}

// Each listed value must parse as `check` wants; `what` names the expected form.
template <class Check>
void check_items(const std::filesystem::path& path, const toml::table& table, const char* key,
                 const std::vector<std::string>& values, Check check, const std::string& what) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!check(values[i])) {
      fail(path, *table.get(key)->as_array()->get(i), key, "`" + values[i] + "` is not " + what);
    }
  }
}

bool is_python_minor(const std::string& text) {
  const auto dot = text.find('.');
  return dot != std::string::npos && dot > 0 && dot + 1 < text.size() &&
         std::all_of(
             text.begin(), text.end(),
             [](char c) { return c == '.' || std::isdigit(static_cast<unsigned char>(c)) != 0; }) &&
         text.find('.', dot + 1) == std::string::npos;
}

bool is_platform(const std::string& text) {
  return text == "linux_x86_64" || text == "linux_aarch64";
}

}  // namespace

SnapshotConfig read_snapshot_config(const std::filesystem::path& path) {
  const auto text = core::try_read_file(path);
  if (!text) {
    throw Error(ExitCode::bad_input, "cannot read `" + path.string() + "`",
                "run from the repository root, or name the file with `--config FILE`");
  }
  toml::table document;
  try {
    document = toml::parse(*text);
  } catch (const toml::parse_error& error) {
    throw Error(ExitCode::bad_input,
                where(path, error.source()) + ": invalid TOML: " + std::string(error.description()),
                kHint);
  }
  SnapshotConfig config;
  for (const auto& [key, node] : document) {
    const std::string name(key.str());
    if (name != "roots" && name != "pythons" && name != "platforms" && name != "glibc" &&
        name != "profiles" && name != "max_versions") {
      throw Error(ExitCode::bad_input, where(path, key.source()) + ": unknown key `" + name + "`",
                  "known keys: `roots`, `pythons`, `platforms`, `glibc`, `profiles`, "
                  "`max_versions`");
    }
  }
  const auto roots = strings(path, document, "roots").value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < roots.size(); ++i) {
    auto parsed = core::Requirement::parse(roots[i]);
    if (!parsed) {
      fail(path, *document.get("roots")->as_array()->get(i), "roots",
           "`" + roots[i] + "` is not a PEP 508 requirement: " + parsed.error().to_string());
    }
    config.roots.push_back(std::move(parsed).value());
  }
  config.pythons = strings(path, document, "pythons").value_or(std::vector<std::string>{"3.8"});
  check_items(path, document, "pythons", config.pythons, is_python_minor, "a `major.minor` Python");
  config.platforms = strings(path, document, "platforms")
                         .value_or(std::vector<std::string>{"linux_x86_64", "linux_aarch64"});
  check_items(path, document, "platforms", config.platforms, is_platform,
              "`linux_x86_64` or `linux_aarch64`");
  if (const toml::node* glibc = document.get("glibc")) {
    if (!glibc->is_string()) fail(path, *glibc, "glibc", "expected a string such as \"2.31\"");
    config.glibc = *glibc->value<std::string>();
  }
  config.profiles = strings(path, document, "profiles");
  if (const toml::node* max = document.get("max_versions")) {
    if (!max->is_integer() || *max->value<std::int64_t>() < 1) {
      fail(path, *max, "max_versions", "expected a positive integer");
    }
    config.max_versions = static_cast<std::size_t>(*max->value<std::int64_t>());
  }
  return config;
}

}  // namespace bevenv::app
