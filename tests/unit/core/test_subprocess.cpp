#include <catch2/catch.hpp>
#include <chrono>

#include "bevenv/core/subprocess.hpp"

using bevenv::core::ProcessOptions;
using bevenv::core::run_process;

TEST_CASE("run_process captures output and exit code") {
  const auto result = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(result.exit_code == 3);
  CHECK(result.out == "out\n");
  CHECK(result.err == "err\n");
  CHECK_FALSE(result.timed_out);
}

TEST_CASE("run_process feeds stdin and extra environment") {
  ProcessOptions options;
  options.input = std::string(200000, 'a');  // larger than a pipe buffer
  options.extra_env["BEVENV_TEST_VALUE"] = "42";
  const auto result = run_process({"sh", "-c", "wc -c; echo $BEVENV_TEST_VALUE"}, options);
  CHECK(result.exit_code == 0);
  CHECK(result.out == "200000\n42\n");
}

TEST_CASE("run_process kills a hung child and its group at the timeout") {
  ProcessOptions options;
  options.timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const auto result = run_process({"sh", "-c", "sleep 30 & sleep 30"}, options);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(result.timed_out);
  CHECK(elapsed < std::chrono::seconds(5));
}

TEST_CASE("run_process reports a program that does not exist") {
  const auto result = run_process({"bevenv-no-such-program"});
  CHECK(result.spawn_failed);
}

TEST_CASE("run_process reports death by signal") {
  const auto result = run_process({"sh", "-c", "kill -SEGV $$"});
  CHECK(result.signal == 11);
}
