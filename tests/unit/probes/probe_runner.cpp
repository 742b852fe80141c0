#include "probe_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "bevenv/probes/report_schema.hpp"

namespace bevenv::probes::test {

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, got);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

nlohmann::json run_probe(const std::string& args, int* exit_code) {
  const CommandResult result = run_command(shell_quote(BEVENV_PROBE_EXE) + " " + args);
  if (exit_code != nullptr) *exit_code = result.exit_code;
  auto report = nlohmann::json::parse(result.out, nullptr, false);
  INFO("bevenv-probe " << args << " printed: " << result.out);
  REQUIRE_FALSE(report.is_discarded());
  REQUIRE(report.is_object());
  // Every report the real probe prints follows the schema bevenv doctor reads it with.
  const auto problem = check_report(report);
  INFO("schema: field `" << (problem ? problem->field : "")
                         << "`: " << (problem ? problem->message : ""));
  CHECK_FALSE(problem.has_value());
  return report;
}

bool file_exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace bevenv::probes::test
