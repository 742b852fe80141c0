#include "toml_reader.hpp"

#include <algorithm>

#include "bevenv/core/closest.hpp"

namespace bevenv::matrix::detail {
namespace {

std::uint32_t to_u32(toml::source_index value) { return static_cast<std::uint32_t>(value); }

// A core parse error points into the string's text; the value's source begins at its quote.
toml::source_position inside_string(const toml::node& node, std::size_t column) {
  toml::source_position at = node.source().begin;
  if (column > 0) at.column += static_cast<toml::source_index>(column);
  return at;
}

}  // namespace

void FileContext::error(const toml::source_position& at, std::string message) const {
  diagnostics->push_back(Diagnostic{path, to_u32(at.line), to_u32(at.column), std::move(message)});
}

Origin FileContext::origin(const toml::source_position& at) const {
  return Origin{path, to_u32(at.line), to_u32(at.column), layer};
}

std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  return core::closest(word, candidates);
}

TableReader::TableReader(const toml::table& table, std::string context, const FileContext& file)
    : table_(table), context_(std::move(context)), file_(file) {}

toml::source_position TableReader::position() const { return table_.source().begin; }

toml::source_position TableReader::position(std::string_view key) const {
  if (const toml::node* node = table_.get(key)) return node->source().begin;
  return position();
}

bool TableReader::has(std::string_view key) const { return table_.contains(key); }

std::string TableReader::field(std::string_view key) const {
  return context_ + "." + std::string(key);
}

void TableReader::file_error(const toml::source_position& at, std::string message) {
  failed_ = true;
  file_.error(at, std::move(message));
}

void TableReader::type_error(const toml::node& node, std::string_view name,
                             std::string_view expected) {
  file_error(node.source().begin, "`" + std::string(name) + "`: expected " + std::string(expected) +
                                      ", got " + std::string(util::toml_type_name(node.type())));
}

const toml::node* TableReader::get(std::string_view key, bool required, std::string_view expected) {
  known_.emplace_back(key);
  const toml::node* node = table_.get(key);
  if (node == nullptr && required) {
    file_error(position(), "`" + context_ + "`: missing required key `" + std::string(key) + "` (" +
                               std::string(expected) + ")");
  }
  return node;
}

const toml::array* TableReader::array_at(std::string_view key, bool required,
                                         std::string_view expected) {
  const toml::node* node = get(key, required, expected);
  if (node == nullptr) return nullptr;
  const auto* array = node->as_array();
  if (array == nullptr) type_error(*node, field(key), expected);
  return array;
}

template <class Parsed>
std::optional<Parsed> TableReader::parse_text(const toml::node& node, const std::string& name,
                                              std::string_view expected, std::string_view noun) {
  const auto* text = node.as_string();
  if (text == nullptr) {
    type_error(node, name, expected);
    return std::nullopt;
  }
  auto parsed = Parsed::parse(text->get());
  if (!parsed) {
    file_error(inside_string(node, parsed.error().column),
               "`" + name + "`: invalid " + std::string(noun) + " `" + text->get() +
                   "`: " + parsed.error().to_string());
    return std::nullopt;
  }
  return std::move(parsed).value();
}

template <class T>
std::optional<T> TableReader::scalar(std::string_view key, bool required,
                                     std::string_view expected) {
  const toml::node* node = get(key, required, expected);
  if (node == nullptr) return std::nullopt;
  if (const auto* value = node->as<T>()) return value->get();
  type_error(*node, field(key), expected);
  return std::nullopt;
}

std::optional<std::string> TableReader::string(std::string_view key, bool required) {
  return scalar<std::string>(key, required, "a string");
}

std::optional<std::vector<std::string>> TableReader::strings(std::string_view key, bool required) {
  const toml::array* array = array_at(key, required, "an array of strings");
  if (array == nullptr) return std::nullopt;
  std::vector<std::string> out;
  bool all_strings = true;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = *array->get(i);
    if (const auto* text = item.as_string()) {
      out.push_back(text->get());
    } else {
      type_error(item, field(key) + "[" + std::to_string(i) + "]", "a string");
      all_strings = false;
    }
  }
  if (!all_strings) return std::nullopt;
  return out;
}

std::optional<std::int64_t> TableReader::integer(std::string_view key, bool required) {
  return scalar<std::int64_t>(key, required, "an integer");
}

std::optional<double> TableReader::number(std::string_view key, bool required) {
  const toml::node* node = get(key, required, "a number");
  if (node == nullptr) return std::nullopt;
  if (const auto* value = node->as_floating_point()) return value->get();
  if (const auto* value = node->as_integer()) return static_cast<double>(value->get());
  type_error(*node, field(key), "a number");
  return std::nullopt;
}

std::optional<bool> TableReader::boolean(std::string_view key, bool required) {
  return scalar<bool>(key, required, "a boolean");
}

const toml::table* TableReader::table(std::string_view key, bool required) {
  const toml::node* node = get(key, required, "a table");
  if (node == nullptr) return nullptr;
  if (const auto* value = node->as_table()) return value;
  type_error(*node, field(key), "a table");
  return nullptr;
}

std::vector<const toml::table*> TableReader::tables(std::string_view key) {
  std::vector<const toml::table*> out;
  const toml::array* array = array_at(key, false, "an array of tables");
  if (array == nullptr) return out;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = *array->get(i);
    if (const auto* entry = item.as_table()) {
      out.push_back(entry);
    } else {
      type_error(item, field(key) + "[" + std::to_string(i) + "]", "a table");
    }
  }
  return out;
}

std::optional<std::map<std::string, std::string, std::less<>>> TableReader::string_map(
    std::string_view key) {
  const toml::table* entries = table(key);
  if (entries == nullptr) return std::nullopt;
  std::map<std::string, std::string, std::less<>> out;
  for (const auto& [name, value] : *entries) {
    if (const auto* text = value.as_string()) {
      out.emplace(std::string(name.str()), text->get());
    } else {
      type_error(value, field(key) + "." + std::string(name.str()), "a string");
    }
  }
  return out;
}

std::optional<core::Version> TableReader::version(std::string_view key, bool required) {
  const toml::node* node = get(key, required, "a version string");
  if (node == nullptr) return std::nullopt;
  return parse_text<core::Version>(*node, field(key), "a version string", "version");
}

std::optional<core::SpecifierSet> TableReader::parse_specifier(const toml::node& node,
                                                               std::string name) {
  return parse_text<core::SpecifierSet>(node, name, "a version specifier string", "specifier");
}

std::optional<core::Requirement> TableReader::parse_requirement(const toml::node& node,
                                                                std::string name) {
  return parse_text<core::Requirement>(node, name, "a requirement string", "requirement");
}

std::optional<core::SpecifierSet> TableReader::specifier(std::string_view key, bool required) {
  const toml::node* node = get(key, required, "a version specifier string");
  if (node == nullptr) return std::nullopt;
  return parse_specifier(*node, field(key));
}

std::optional<core::Requirement> TableReader::requirement(std::string_view key, bool required) {
  const toml::node* node = get(key, required, "a requirement string");
  if (node == nullptr) return std::nullopt;
  return parse_requirement(*node, field(key));
}

std::vector<core::Requirement> TableReader::requirements(std::string_view key) {
  std::vector<core::Requirement> out;
  const toml::array* array = array_at(key, false, "an array of requirement strings");
  if (array == nullptr) return out;
  for (std::size_t i = 0; i < array->size(); ++i) {
    auto parsed = parse_requirement(*array->get(i), field(key) + "[" + std::to_string(i) + "]");
    if (parsed) out.push_back(std::move(*parsed));
  }
  return out;
}

std::optional<std::string> TableReader::choice(std::string_view key,
                                               const std::vector<std::string>& choices,
                                               std::string_view fallback) {
  const toml::node* node = table_.get(key);
  auto value = string(key);
  if (!value) {
    if (node != nullptr) return std::nullopt;  // wrong type, already reported
    return std::string(fallback);
  }
  if (std::find(choices.begin(), choices.end(), *value) != choices.end()) return value;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "`" : ", `") + c + "`";
  file_error(node->source().begin,
             "`" + field(key) + "`: expected one of " + list + ", got `" + *value + "`");
  return std::nullopt;
}

void TableReader::finish(const std::vector<std::string>& also_known) {
  std::vector<std::string> known = known_;
  known.insert(known.end(), also_known.begin(), also_known.end());
  for (const auto& [key, value] : table_) {
    const std::string name(key.str());
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string message = "`" + context_ + "`: unknown key `" + name + "`";
    const std::string suggestion = closest(name, known);
    if (!suggestion.empty()) message += "; did you mean `" + suggestion + "`?";
    const toml::source_position at =
        key.source().begin.line != 0 ? key.source().begin : value.source().begin;
    file_error(at, std::move(message));
  }
}

}  // namespace bevenv::matrix::detail
