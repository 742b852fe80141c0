#pragma once
// `bevenv.toml`: a project's choice of profile, target machine and extra requirements.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/target.hpp"

namespace bevenv::app {

struct ProjectFile {
  std::filesystem::path path;
  std::optional<std::string> profile;
  std::optional<std::filesystem::path> lockfile;  // relative to the project file
  std::vector<std::string> requirements;
  std::optional<std::filesystem::path> requirements_file;  // relative to the project file
  TargetOverrides target;
};

// Reads a project file. Errors name `file:line:column`, the field and what was expected;
// unknown keys are errors. Throws core::Error(bad_input).
ProjectFile read_project_file(const std::filesystem::path& path);

// The lockfile a command reads when none is named: the `lockfile` of `project_file` (default
// `./bevenv.toml`, when it exists) or else `bevenv.lock`. Every command asks here, so `lock` and
// the commands that read its output agree. Throws like read_project_file on a broken project file.
std::filesystem::path default_lockfile(
    const std::optional<std::filesystem::path>& project_file = {});

// Reads a pip-style requirements file: one PEP 508 requirement per line, `#` comments, blank
// lines; `-r`/`-c`/`--hash` options are rejected with the line number.
std::vector<std::string> read_requirements_file(const std::filesystem::path& path);

}  // namespace bevenv::app
