#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bevenv::core {

struct ProcessResult {
  int exit_code = -1;      // valid when !timed_out and signal == 0
  int signal = 0;          // the signal that ended it, if any
  bool timed_out = false;  // killed after the timeout
  bool spawn_failed = false;
  std::string out;
  std::string err;
};

struct ProcessOptions {
  std::chrono::milliseconds timeout{60000};
  std::optional<std::string> input;              // written to stdin
  std::map<std::string, std::string> extra_env;  // added to the inherited environment
  std::optional<std::string> working_directory;
};

// Runs argv[0] (PATH lookup) with a timeout; the whole process group is killed on timeout,
// so a hung child cannot hang bevenv.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace bevenv::core
