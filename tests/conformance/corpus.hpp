#pragma once
// Loading the corpus that the gen_*.py scripts write into the build tree (see README.md).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace bevenv::conformance {

inline std::filesystem::path corpus_dir() {
  if (const char* env = std::getenv("BEVENV_CORPUS_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return BEVENV_CORPUS_DIR;
}

// One JSON object per line. A missing file fails the test: a silent skip would hide a broken
// generator.
inline std::vector<nlohmann::json> load_jsonl(const std::string& file_name) {
  const std::filesystem::path path = corpus_dir() / file_name;
  std::ifstream in(path);
  INFO("corpus file " << path.string());
  REQUIRE(in.good());
  std::vector<nlohmann::json> records;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) records.push_back(nlohmann::json::parse(line));
  }
  return records;
}

// Collects disagreements with the oracle and shows the first few, so that one run tells what
// is wrong without drowning the output.
class Disagreements {
 public:
  void add(std::string what) { items_.push_back(std::move(what)); }
  std::size_t count() const { return items_.size(); }
  std::string first_few() const {
    std::string out;
    for (std::size_t i = 0; i < items_.size() && i < kShown; ++i) out += items_[i] + "\n";
    return out;
  }

 private:
  static constexpr std::size_t kShown = 25;
  std::vector<std::string> items_;
};

// How `Parsed::parse` reads `text`: its canonical text in backquotes, or the error.
template <class Parsed>
std::string describe_parse(const std::string& text) {
  auto parsed = Parsed::parse(text);
  return parsed ? "`" + parsed->to_string() + "`" : "invalid (" + parsed.error().to_string() + ")";
}

// packaging prints marker values as they are, so a text holding a backslash, a line break or a
// NUL does not read back as itself; only the other texts can be held to the round trip.
inline bool prints_as_written(const std::string& text) {
  return text.find_first_of(std::string_view("\\\n\r\0", 4)) == std::string::npos;
}

}  // namespace bevenv::conformance
