// bevenv.toml and requirements files: hostile files are bad input with a position, never a
// crash inside toml++ or a read that does not end.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bevenv/app/project_file.hpp"
#include "bevenv/core/error.hpp"
#include "fresh_dir.hpp"
#include "thrown_error.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;
using bevenv::testing::fresh_dir;

// The error reading `path` ends in, which must be bad input.
core::Error refused(const fs::path& path) {
  const auto error = bevenv::testing::thrown_error([&] { (void)read_project_file(path); });
  REQUIRE(error.has_value());
  CHECK(error->code() == core::ExitCode::bad_input);
  return *error;
}

std::string refusal(const fs::path& path) { return refused(path).what(); }

// The hint of an unknown key, which must also name the key at its position.
std::string unknown_key_hint(const fs::path& file, const std::string& text,
                             const std::string& position_and_key) {
  std::ofstream(file) << text;
  const core::Error error = refused(file);
  CHECK(std::string(error.what()) == file.string() + ":" + position_and_key);
  return error.hint();
}

TEST_CASE("bevenv.toml: an unknown key's hint says where it belongs, or what it was meant to be") {
  const fs::path file = fresh_dir("keys") / "bevenv.toml";
  CHECK(unknown_key_hint(file, "profile = \"bevfusion\"\n", "1:1: unknown key `profile`") ==
        "`profile` belongs in `[project]`");
  CHECK(unknown_key_hint(file, "[project]\ngpus = [\"sm_86\"]\n",
                         "2:1: unknown key `project.gpus`") == "`gpus` belongs in `[target]`");
  CHECK(unknown_key_hint(file, "[target]\ncuda_driver = \"12.2\"\n",
                         "2:1: unknown key `target.cuda_driver`") == "did you mean `cuda-driver`?");
  CHECK(unknown_key_hint(file, "[project]\nzzzz = 1\n", "2:1: unknown key `project.zzzz`") ==
        "known keys here: `lockfile`, `profile`, `requirements`, `requirements-file`");
}

TEST_CASE("bevenv.toml: a 31k-part dotted header is refused at its position") {
  const fs::path file = fresh_dir("deep") / "bevenv.toml";
  std::string header = "[project";
  for (int i = 0; i < 31000; ++i) header += ".a";
  std::ofstream(file) << "[target]\npython = \"3.8\"\n" << header << "]\n";
  CHECK(refusal(file).rfind(file.string() + ":3:" + std::to_string(9 + 2 * 63) + ": ", 0) == 0);
}

TEST_CASE("bevenv.toml: deep inline tables and arrays are refused") {
  const fs::path dir = fresh_dir("inline");
  std::string tables;
  for (int i = 0; i < 20000; ++i) tables += "{a=";
  std::ofstream(dir / "tables.toml") << "[project]\nprofile = " << tables;
  CHECK_THAT(refusal(dir / "tables.toml"), Catch::Contains(":2:") && Catch::Contains("at most 64"));
  std::ofstream(dir / "arrays.toml") << "x = " << std::string(50000, '[');
  CHECK_THAT(refusal(dir / "arrays.toml"), Catch::Contains("at most 64"));
}

TEST_CASE("bevenv.toml and requirements files that are FIFOs are refused") {
  const fs::path dir = fresh_dir("fifo");
  REQUIRE(::mkfifo((dir / "bevenv.toml").c_str(), 0600) == 0);
  CHECK_THAT(refusal(dir / "bevenv.toml"), Catch::Contains("FIFO"));
  CHECK_THROWS_AS(read_requirements_file(dir / "bevenv.toml"), core::Error);
}

}  // namespace
}  // namespace bevenv::app
