// `bevenv doctor --launcher`: the launch lines, and --run through a stand-in torchrun
// (fake-launcher/torchrun) that starts the real bevenv-probe ranks on this machine.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <random>

#include "bevenv/app/doctor_cluster.hpp"
#include "bevenv/core/error.hpp"

using namespace bevenv;

namespace {

bool contains_sequence(const std::vector<std::string>& argv, const std::vector<std::string>& part) {
  return std::search(argv.begin(), argv.end(), part.begin(), part.end()) != argv.end();
}

std::string all_text(const app::CommandOutput& output) {
  std::string text;
  for (const auto& line : output.lines) text += line.text + "\n";
  return text;
}

bool can_bind(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return bound;
}

// A MASTER_PORT that, with its successor (rank 0's rendezvous port), is free now and lies below
// the kernel's ephemeral range, so the loopback clients of tests running beside this one
// cannot take it before the ranks bind.
int free_port_pair() {
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  const int span = std::max(1, ephemeral_low - 2 - 10000);
  std::random_device device;
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = 10000 + static_cast<int>(device() % static_cast<unsigned>(span));
    if (can_bind(port) && can_bind(port + 1)) return port;
  }
  FAIL("no free port pair below the ephemeral range");
  return 0;
}

}  // namespace

TEST_CASE("the launch line for each launcher", "[cluster]") {
  app::LaunchOptions options;
  options.probe = "/opt/bevenv-probe";
  options.lockfile = "bevenv.lock";
  options.gpus_per_node = 8;
  options.timeout = std::chrono::seconds(90);

  options.launcher = "torchrun";
  auto argv = app::doctor_launch_argv(options);
  CHECK(argv.front() == "torchrun");
  CHECK(contains_sequence(argv, {"--nproc-per-node", "8"}));
  CHECK(contains_sequence(argv,
                          {"--no-python", "/opt/bevenv-probe", "--rank", "--rank-timeout", "90"}));
  CHECK(contains_sequence(argv, {"--lockfile", "bevenv.lock"}));

  options.nodes = 4;
  argv = app::doctor_launch_argv(options);
  CHECK(
      contains_sequence(argv, {"--rdzv-backend", "c10d", "--rdzv-endpoint", "$MASTER_ADDR:29500"}));
  const auto printed = app::doctor_launch(options);
  CHECK(printed.json["launch"]["line"].get<std::string>().find("\"$MASTER_ADDR:29500\"") !=
        std::string::npos);
  CHECK(printed.exit_code == core::ExitCode::ok);

  options.launcher = "srun";
  argv = app::doctor_launch_argv(options);
  CHECK(contains_sequence(argv, {"srun", "--nodes", "4", "--ntasks-per-node", "8"}));
  CHECK(contains_sequence(argv, {"--rendezvous-port", "29501"}));

  options.launcher = "mpirun";
  options.nodes = 2;
  options.hosts = {"gpu01", "gpu02"};
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
  argv = app::doctor_launch_argv(options);
  ::unsetenv("NCCL_NVLS_ENABLE");
  CHECK(contains_sequence(argv, {"mpirun", "-np", "16", "--map-by", "ppr:8:node"}));
  CHECK(contains_sequence(argv, {"-H", "gpu01:8,gpu02:8"}));
  CHECK(contains_sequence(argv, {"-x", "NCCL_NVLS_ENABLE"}));
  CHECK(contains_sequence(argv, {"--master", "gpu01:29500"}));

  options.launcher = "pdsh";
  try {
    app::doctor_launch_argv(options);
    FAIL("an unknown launcher was accepted");
  } catch (const core::Error& error) {
    CHECK(error.code() == core::ExitCode::bad_input);
    CHECK(std::string(error.what()).find("`pdsh`") != std::string::npos);
  }
  options.launcher = "mpirun";
  options.hosts = {"only-one"};
  CHECK_THROWS_AS(app::doctor_launch_argv(options), core::Error);
}

TEST_CASE("--run launches the ranks and renders rank 0's aggregate", "[cluster]") {
  const std::string path = std::string(BEVENV_FAKE_LAUNCHER_DIR) + ":" + std::getenv("PATH");
  ::setenv("PATH", path.c_str(), 1);
  ::setenv("BEVENV_PROBE_TEST_HOOKS", "1", 1);
  app::LaunchOptions options;
  options.launcher = "torchrun";
  options.gpus_per_node = 3;
  options.probe = BEVENV_PROBE_EXE;
  options.no_collective = true;
  options.run = true;
  options.timeout = std::chrono::seconds(5);
  options.master_port = free_port_pair();

  const auto all = app::doctor_launch(options);
  INFO(all_text(all));
  CHECK(all.exit_code == core::ExitCode::ok);
  CHECK(all.json["aggregate"]["ranks_reported"] == 3);
  CHECK(all_text(all).find("3 of 3 ranks reported from 1 node") != std::string::npos);

  ::setenv("FAKE_TORCHRUN_SKIP_RANK", "2", 1);
  options.master_port = free_port_pair();
  const auto start = std::chrono::steady_clock::now();
  const auto missing = app::doctor_launch(options);
  ::unsetenv("FAKE_TORCHRUN_SKIP_RANK");
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(all_text(missing));
  CHECK(missing.exit_code == core::ExitCode::problem_found);
  CHECK(missing.json["aggregate"]["missing_ranks"] == nlohmann::json::array({2}));
  CHECK(all_text(missing).find("rank 2 never reached rank 0") != std::string::npos);
  // The fix is the failure catalogue's `rank-unreachable`, with the rendezvous port filled in.
  CHECK(all_text(missing).find("can reach rank 0's host on port " +
                               std::to_string(options.master_port + 1)) != std::string::npos);
  CHECK(seconds < 5 * 3 + 5);
}
