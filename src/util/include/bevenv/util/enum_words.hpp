#pragma once
// An enum's words as one table of {value, word} rows instead of a switch per direction: adding a
// value is adding a row, and the name and the parse of a value cannot drift apart.
#include <cstddef>
#include <optional>
#include <string_view>

namespace bevenv::util {

template <typename Enum>
struct EnumWord {
  Enum value;
  std::string_view word;
};

// The word of `value` in `table`; `fallback` for a value the table lacks (a cast from an int).
template <typename Enum, std::size_t N>
constexpr std::string_view word_of(const EnumWord<Enum> (&table)[N], Enum value,
                                   std::string_view fallback) {
  for (const auto& row : table) {
    if (row.value == value) return row.word;
  }
  return fallback;
}

// The value whose word is `word`; nothing for a word the table lacks.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> value_of(const EnumWord<Enum> (&table)[N], std::string_view word) {
  for (const auto& row : table) {
    if (row.word == word) return row.value;
  }
  return std::nullopt;
}

}  // namespace bevenv::util
