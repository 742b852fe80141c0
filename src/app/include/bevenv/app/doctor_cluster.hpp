#pragma once
// `bevenv doctor --launcher torchrun|srun|mpirun`: the launch line that fans `bevenv-probe --rank`
// out over a cluster through its own launcher, and (with --run) running it and reading rank 0's
// aggregated report.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "bevenv/app/matrix_source.hpp"
#include "bevenv/app/output.hpp"

namespace bevenv::app {

struct LaunchOptions {
  std::string launcher;  // `torchrun`, `srun` or `mpirun`
  int nodes = 1;
  int gpus_per_node = 1;
  bool run = false;                   // run the line here instead of only printing it
  std::filesystem::path probe;        // the bevenv-probe binary to launch
  std::filesystem::path lockfile;     // passed to each rank so lock hashes can be compared
  std::chrono::seconds timeout{120};  // rendezvous and collective bound per rank
  // Added for the launch line (doctor_cluster_line.cpp):
  std::string master_addr;         // first node's address (torchrun/mpirun over several nodes)
  int master_port = 29500;         // the launcher's port; the probe's rendezvous uses port + 1
  std::vector<std::string> hosts;  // mpirun: the nodes, rank 0's first; empty: a hostfile
  std::filesystem::path python;    // environment whose packages each node reports
  bool no_collective = false;      // rendezvous and reports only, no all-reduce
  MatrixOptions matrix;            // whose failure catalogue words the fixes of rank 0's report
};

// The argv of the launch line (without running it); core::Error on options that cannot work.
std::vector<std::string> doctor_launch_argv(const LaunchOptions& options);

CommandOutput doctor_launch(const LaunchOptions& options);

}  // namespace bevenv::app
