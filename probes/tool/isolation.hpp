#pragma once
// Runs probes and programs in child processes so that a hung or crashing driver, NCCL or
// Python import costs one probe's result, never the whole report.
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bevenv::probe_tool {

// Runs `probe` in a forked child and returns the JSON it produced. On timeout the child is
// killed and {"status":"timeout"} comes back; a child killed by a signal gives
// {"status":"crashed","signal":N,"signal_name":"SIGSEGV"}. "duration_ms" is always set.
nlohmann::json run_isolated(const std::string& name, const std::function<nlohmann::json()>& probe,
                            std::chrono::milliseconds timeout);

// The same in two halves, so that several probes run at once: start forks the child, finish
// collects its report (the timeout counts from the start). A start that failed (no pipe, no
// fork) finishes with its error.
struct IsolatedProbe {
  std::string name;
  int pid = -1;
  int fd = -1;  // the read end of the child's report pipe
  std::chrono::steady_clock::time_point start;
  std::chrono::milliseconds timeout{0};
  nlohmann::json failed;
};
IsolatedProbe start_isolated(const std::string& name, const std::function<nlohmann::json()>& probe,
                             std::chrono::milliseconds timeout);
nlohmann::json finish_isolated(IsolatedProbe& started);

struct ProgramResult {
  bool spawn_failed = false;
  bool timed_out = false;
  int exit_code = -1;  // valid when the program exited
  int signal = 0;      // the signal that ended it, if one did
  std::string out;
  std::string err;
};

// Runs argv (PATH lookup for argv[0]) in its own process group with a timeout; on timeout the
// whole group is killed, so grandchildren cannot keep it alive.
ProgramResult run_program(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

std::string signal_name(int signal);

}  // namespace bevenv::probe_tool
