#pragma once
// Commands answered from an existing lockfile: `bevenv why` and `bevenv export`.
#include <filesystem>
#include <optional>
#include <string>

#include "bevenv/app/output.hpp"

namespace bevenv::app {

struct WhyOptions {
  std::filesystem::path lockfile = "bevenv.lock";
  std::string package;
};
CommandOutput why(const WhyOptions& options);

enum class ExportFormat { requirements, json, pylock };

struct ExportOptions {
  std::filesystem::path lockfile = "bevenv.lock";
  ExportFormat format = ExportFormat::requirements;
  std::optional<std::filesystem::path> output;  // stdout when absent
  bool hashes = true;
  bool allow_unhashed = false;  // pylock: write unhashed files with an empty `hashes` table
};
CommandOutput export_lockfile(const ExportOptions& options);

}  // namespace bevenv::app
