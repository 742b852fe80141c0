#include "golden.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace bevenv::golden {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (!text.empty() && text.back() != '\n') lines.back() += "\\ (no newline at end)";
  return lines;
}

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Temporary file, then rename: an interrupted update never leaves half a golden.
void write_atomically(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  const fs::path temporary = path.string() + ".tmp-" + std::to_string(::getpid());
  std::ofstream(temporary, std::ios::binary) << text;
  fs::rename(temporary, path);
}

enum class Op { same, removed, added };
struct Edit {
  Op op;
  std::size_t a, b;  // line numbers in expected and actual (0-based) where the edit applies
};

// The edit script of a longest common subsequence; goldens are at most a few thousand lines.
std::vector<Edit> edit_script(const std::vector<std::string>& a,
                              const std::vector<std::string>& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::uint32_t>> common(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      common[i][j] =
          a[i] == b[j] ? common[i + 1][j + 1] + 1 : std::max(common[i + 1][j], common[i][j + 1]);
  std::vector<Edit> edits;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      edits.push_back({Op::same, i++, j++});
    } else if (i < n && (j == m || common[i + 1][j] >= common[i][j + 1])) {
      edits.push_back({Op::removed, i++, j});  // removals first, as diff -u shows them
    } else {
      edits.push_back({Op::added, i, j++});
    }
  }
  return edits;
}

char prefix(Op op) { return op == Op::same ? ' ' : op == Op::removed ? '-' : '+'; }

}  // namespace

bool updating() {
  const char* value = std::getenv("BEVENV_UPDATE_GOLDEN");
  return value != nullptr && std::string(value) == "1";
}

std::string unified_diff(const std::string& expected, const std::string& actual,
                         std::size_t context, std::size_t max_lines) {
  if (expected == actual) return "";
  const auto a = lines_of(expected), b = lines_of(actual);
  const auto edits = edit_script(a, b);
  // Marks the edits shown: every change and `context` unchanged lines on either side.
  std::vector<bool> shown(edits.size(), false);
  for (std::size_t k = 0; k < edits.size(); ++k) {
    if (edits[k].op == Op::same) continue;
    const std::size_t from = k >= context ? k - context : 0;
    const std::size_t to = std::min(edits.size(), k + context + 1);
    std::fill(shown.begin() + static_cast<std::ptrdiff_t>(from),
              shown.begin() + static_cast<std::ptrdiff_t>(to), true);
  }
  std::string out = "--- golden\n+++ actual\n";
  std::size_t written = 0;
  for (std::size_t k = 0; k < edits.size(); ++k) {
    if (!shown[k]) continue;
    if (k == 0 || !shown[k - 1])
      out += "@@ golden line " + std::to_string(edits[k].a + 1) + ", actual line " +
             std::to_string(edits[k].b + 1) + " @@\n";
    if (++written > max_lines) {
      out += "... (diff cut after " + std::to_string(max_lines) + " lines)\n";
      break;
    }
    const auto& line = edits[k].op == Op::added ? b[edits[k].b] : a[edits[k].a];
    out += prefix(edits[k].op) + line + "\n";
  }
  return out;
}

std::string mismatch(const fs::path& path, const std::string& actual) {
  if (updating()) {
    write_atomically(path, actual);
    return "";
  }
  const auto expected = read_text(path);
  if (!expected) return "no golden file " + path.string() + "; BEVENV_UPDATE_GOLDEN=1 writes it";
  const std::string diff = unified_diff(*expected, actual);
  if (diff.empty()) return "";
  return path.string() + " differs (BEVENV_UPDATE_GOLDEN=1 rewrites it; review with git diff)\n" +
         diff;
}

}  // namespace bevenv::golden
