#pragma once
// Lexical pieces shared by the PEP 508 marker and requirement parsers. They reproduce the
// token rules of Python's `packaging` (its regular expressions run on Unicode text), so that
// bevenv accepts exactly the strings pip accepts.
#include <cstddef>
#include <string>
#include <string_view>

#include "bevenv/core/error.hpp"

namespace bevenv::core::pep508 {

inline constexpr std::size_t npos = std::string_view::npos;

// Byte length of the UTF-8 character at `pos` (1 for bytes that do not start a valid sequence).
std::size_t char_length(std::string_view text, std::size_t pos);

// Length of one character Python's `str.isspace()` accepts at `pos`, 0 if none.
std::size_t python_space_length(std::string_view text, std::size_t pos);
std::size_t skip_python_spaces(std::string_view text, std::size_t pos);
std::string_view strip_python_spaces(std::string_view text);

// The tokenizer's `WS` rule: a run of spaces and tabs. Returns the position after it.
std::size_t skip_blanks(std::string_view text, std::size_t pos);

// Python's regex `\b` at `pos`. Non-ASCII letters count as word characters as in Python;
// non-ASCII punctuation and spaces do not.
bool at_word_boundary(std::string_view text, std::size_t pos);

// `[a-zA-Z0-9][a-zA-Z0-9._-]*\b` at `pos`: the end of the identifier, or npos.
std::size_t match_identifier(std::string_view text, std::size_t pos);

// packaging's `Specifier` regular expression (one specifier such as `>= 1.0`, not anchored at
// the end) at `pos`: the end of the match, or npos.
std::size_t match_specifier(std::string_view text, std::size_t pos);
// Whether `text` is one whole specifier, surrounding whitespace allowed (Specifier(text)).
bool is_specifier_text(std::string_view text);

// 1-based column for an error at byte `pos`. An error at the end of the text points at its
// last character, so that a caret can always be drawn under something.
std::size_t column_at(std::string_view text, std::size_t pos);
ParseError error_at(std::string_view text, std::size_t pos, std::string message);

// Short quotation of the text at `pos` for messages: the word or character found there.
std::string found_at(std::string_view text, std::size_t pos);

}  // namespace bevenv::core::pep508
