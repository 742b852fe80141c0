#pragma once
// "Did you mean": the candidate a mistyped word was most likely meant to be.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace bevenv::core {

// Levenshtein distance: insertions, deletions and substitutions, each costing 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate by edit distance, or empty when none is close enough to be a typo
// (more than a third of the word, and at least 2 edits, away).
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace bevenv::core
