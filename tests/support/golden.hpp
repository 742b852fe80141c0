#pragma once
// The one golden-file mechanism of the C++ tests (docs/development.md, "Golden files"): compare
// a produced text with its reviewed file and show a unified diff when they differ;
// BEVENV_UPDATE_GOLDEN=1 rewrites the file instead (atomically), for review with `git diff`.
// tests/support/golden.py is the same mechanism for the Python drivers.
#include <filesystem>
#include <string>

namespace bevenv::golden {

// True when BEVENV_UPDATE_GOLDEN=1: goldens are written, not compared.
bool updating();

// Empty when `actual` equals the golden file at `path` (or the file was rewritten because
// goldens are being updated); otherwise what a reader needs: the file, the diff, how to refresh.
std::string mismatch(const std::filesystem::path& path, const std::string& actual);

// A unified diff of two texts, line by line, with `context` lines around each change; empty
// when they are equal. Long diffs are cut after `max_lines` lines.
std::string unified_diff(const std::string& expected, const std::string& actual,
                         std::size_t context = 3, std::size_t max_lines = 80);

}  // namespace bevenv::golden

// Fails the current Catch2 test with the diff when `actual` differs from the golden at `path`.
#define CHECK_GOLDEN(path, actual)                                                       \
  do {                                                                                   \
    const std::string bevenv_golden_mismatch = ::bevenv::golden::mismatch(path, actual); \
    INFO(bevenv_golden_mismatch);                                                        \
    CHECK(bevenv_golden_mismatch.empty());                                               \
  } while (false)
