#pragma once
// Typed reads from one toml++ table that turn every mismatch into a Diagnostic with the
// file:line:column of the offending value, and report keys nobody asked for as unknown.
#include <toml++/toml.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/requirement.hpp"
#include "bevenv/core/specifier.hpp"
#include "bevenv/core/version.hpp"
#include "bevenv/matrix/diagnostic.hpp"
#include "bevenv/matrix/model.hpp"
#include "bevenv/util/enum_words.hpp"
#include "bevenv/util/toml_words.hpp"

namespace bevenv::matrix::detail {

struct FileContext {
  std::string path;
  Layer layer = Layer::embedded;
  std::vector<Diagnostic>* diagnostics = nullptr;

  void error(const toml::source_position& at, std::string message) const;
  Origin origin(const toml::source_position& at) const;
};

// The closest candidate by edit distance, or empty when none is close enough to be a typo.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

class TableReader {
 public:
  // `context` names the table in messages: `package`, `rule.when`, `profile.build`.
  TableReader(const toml::table& table, std::string context, const FileContext& file);

  const toml::table& table() const { return table_; }
  const std::string& context() const { return context_; }
  toml::source_position position() const;                      // the table's header
  toml::source_position position(std::string_view key) const;  // the value, or the header
  bool has(std::string_view key) const;

  std::optional<std::string> string(std::string_view key, bool required = false);
  std::optional<std::vector<std::string>> strings(std::string_view key, bool required = false);
  std::optional<std::int64_t> integer(std::string_view key, bool required = false);
  std::optional<double> number(std::string_view key, bool required = false);
  std::optional<bool> boolean(std::string_view key, bool required = false);
  const toml::table* table(std::string_view key, bool required = false);
  std::vector<const toml::table*> tables(std::string_view key);  // array of tables
  // `visit(reader)` for each table of the array `key`, its reader named `CONTEXT.key[i]`.
  template <class Visit>
  void each_table(std::string_view key, Visit visit) {
    const auto entries = tables(key);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      TableReader entry(*entries[i], field(key) + "[" + std::to_string(i) + "]", file_);
      visit(entry);
    }
  }
  std::optional<std::map<std::string, std::string, std::less<>>> string_map(std::string_view key);

  std::optional<core::Version> version(std::string_view key, bool required = false);
  std::optional<core::SpecifierSet> specifier(std::string_view key, bool required = false);
  std::optional<core::Requirement> requirement(std::string_view key, bool required = false);
  std::vector<core::Requirement> requirements(std::string_view key);
  // One of `choices`; the default when absent.
  std::optional<std::string> choice(std::string_view key, const std::vector<std::string>& choices,
                                    std::string_view fallback);
  // The value whose word is at `key`; nothing when absent or not one of `words` (reported).
  template <class Enum, std::size_t N>
  std::optional<Enum> choice(std::string_view key, const util::EnumWord<Enum> (&words)[N]) {
    std::vector<std::string> choices;
    for (const auto& row : words) choices.emplace_back(row.word);
    const auto word = choice(key, choices, "");
    return word ? util::value_of(words, *word) : std::nullopt;
  }

  // Reports keys no getter asked for, with the closest known key.
  void finish(const std::vector<std::string>& also_known = {});
  bool ok() const { return !failed_; }
  void file_error(const toml::source_position& at, std::string message);

  // Parse helpers reused for values that are not direct keys (rule.when package specifiers).
  std::optional<core::SpecifierSet> parse_specifier(const toml::node& node, std::string field);
  std::optional<core::Requirement> parse_requirement(const toml::node& node, std::string field);

 private:
  const toml::node* get(std::string_view key, bool required, std::string_view expected);
  // The value at `key` when it is a TOML `T`; else nothing (a wrong type reported as not
  // `expected`).
  template <class T>
  std::optional<T> scalar(std::string_view key, bool required, std::string_view expected);
  // The array at `key`; nullptr when absent or not an array (reported as not `expected`).
  const toml::array* array_at(std::string_view key, bool required, std::string_view expected);
  // `node`'s string parsed by `Parsed::parse`; a non-string or a parse error is reported under
  // `name` ("`name`: invalid NOUN `text`: why").
  template <class Parsed>
  std::optional<Parsed> parse_text(const toml::node& node, const std::string& name,
                                   std::string_view expected, std::string_view noun);
  void type_error(const toml::node& node, std::string_view field, std::string_view expected);
  std::string field(std::string_view key) const;

  const toml::table& table_;
  std::string context_;
  const FileContext& file_;
  std::vector<std::string> known_;
  bool failed_ = false;
};

}  // namespace bevenv::matrix::detail
