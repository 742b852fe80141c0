#pragma once
// A child process whose output (stdout and stderr together) is handed over line by line while it
// runs, for build logs that take minutes. core::run_process collects output instead.
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace bevenv::containers::detail {

struct StreamResult {
  int exit_code = -1;  // 128 + signal when a signal ended it
  bool spawn_failed = false;
  std::string spawn_error;
};

StreamResult run_streaming(const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& extra_env,
                           const std::function<void(std::string_view)>& on_line);

}  // namespace bevenv::containers::detail
