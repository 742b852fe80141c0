#pragma once
// Loading the corpus that the gen_*.py scripts write into the build tree (see README.md).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
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

}  // namespace bevenv::conformance
