// Each tests/golden/matrix-broken/NN-name/ holds broken overlay files and expected.txt, the
// exact output of `bevenv matrix check` on it (paths relative to the repository root).
// A difference prints a diff; BEVENV_UPDATE_GOLDEN=1 rewrites expected.txt (golden.hpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "bevenv/app/matrix_commands.hpp"
#include "golden.hpp"

using namespace bevenv;
namespace fs = std::filesystem;

namespace {

std::string relative_output(const app::CommandOutput& out) {
  const std::string root = std::string(BEVENV_SOURCE_DIR) + "/";
  std::string text;
  for (const auto& line : out.lines) {
    std::string shown = line.text;
    for (auto at = shown.find(root); at != std::string::npos; at = shown.find(root)) {
      shown.erase(at, root.size());
    }
    text += shown + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("every broken matrix gives its exact golden message") {
  ::unsetenv("BEVENV_MATRIX_PATH");
  const fs::path root = fs::path(BEVENV_SOURCE_DIR) / "tests/golden/matrix-broken";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  REQUIRE(cases.size() >= 30);
  for (const auto& dir : cases) {
    INFO("case " << dir.filename().string());
    app::MatrixCheckOptions options;
    options.dirs = {dir};
    const auto out = app::matrix_check(options);
    CHECK(out.exit_code == core::ExitCode::bad_input);
    CHECK_GOLDEN(dir / "expected.txt", relative_output(out));
  }
}
