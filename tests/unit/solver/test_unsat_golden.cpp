// Unsatisfiable scenarios and their rendered explanations, kept as reviewed golden files:
// tests/golden/solver-unsat/NAME.scenario (input) and NAME.txt (expected explanation).
// A difference prints a diff; BEVENV_UPDATE_GOLDEN=1 rewrites the .txt files (golden.hpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bevenv/solver/solve.hpp"
#include "golden.hpp"
#include "scenario.hpp"

namespace fs = std::filesystem;
using namespace bevenv::solver;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<fs::path> scenarios() {
  std::vector<fs::path> found;
  const fs::path dir = fs::path(BEVENV_SOURCE_DIR) / "tests/golden/solver-unsat";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".scenario") found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

TEST_CASE("unsatisfiable scenarios explain themselves as the golden files say",
          "[solver][golden]") {
  const auto files = scenarios();
  REQUIRE(files.size() >= 10);
  for (const auto& path : files) {
    INFO("scenario " << path.filename().string());
    auto scenario = testing::parse_scenario(read_file(path));
    auto result = solve(scenario.database, scenario.request);
    REQUIRE(std::holds_alternative<Unsolvable>(result));
    const auto lines = render_explanation(std::get<Unsolvable>(result));
    std::string rendered;
    for (const auto& line : lines) rendered += line + "\n";
    CHECK(!lines.empty());
    CHECK(lines.size() <= 8);  // short enough to read at a glance
    fs::path golden = path;
    golden.replace_extension(".txt");
    CHECK_GOLDEN(golden, rendered);
  }
}
