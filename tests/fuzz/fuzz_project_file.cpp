// Fuzzes the project's own inputs (app/project_file.cpp): the first byte picks `bevenv.toml` or
// a requirements file, the rest is its content. Either the reader refuses with
// core::Error(bad_input) naming the file, or every requirement it hands on is one PEP 508 line.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "bevenv/app/project_file.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/requirement.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;
namespace fs = std::filesystem;

namespace {

const fs::path& directory() {
  static const fs::path dir = bevenv::fuzz::temp_directory("project");
  return dir;
}

void check_requirement(const std::string& text) {
  require(!text.empty() && text.find('\n') == std::string::npos, "a requirement of many lines");
  require(bevenv::core::Requirement::parse(text).has_value(), "a requirement that does not parse");
}

void read(const fs::path& path, bool project) {
  if (project) {
    const auto file = bevenv::app::read_project_file(path);
    for (const auto& requirement : file.requirements) check_requirement(requirement);
  } else {
    for (const auto& requirement : bevenv::app::read_requirements_file(path)) {
      check_requirement(requirement);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool project = (data[0] & 1) == 0;
  const fs::path path = directory() / (project ? "bevenv.toml" : "requirements.txt");
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data) + 1,  // NOLINT
             static_cast<std::streamsize>(size - 1));
  try {
    read(path, project);
  } catch (const bevenv::core::Error& error) {
    require(error.code() == bevenv::core::ExitCode::bad_input, "a refusal that is not bad input");
    require(std::string(error.what()).find(path.string()) != std::string::npos,
            "a refusal that does not name the file");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "exception: %s\n", error.what());
    require(false, "an exception other than core::Error escaped");
  }
  return 0;
}
