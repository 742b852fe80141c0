#pragma once
// The recommended `docker run` / `podman run` line for an image.
#include <cstdint>
#include <string>

namespace bevenv::containers {

// Shared memory per DataLoader worker: a worker hands whole batches to the trainer through
// /dev/shm, and with prefetching a multi-camera BEV batch holds about this much (F12).
inline constexpr std::int64_t kShmGibPerWorker = 1;
// Docker's default /dev/shm is 64 MB; GPU training never gets less than this.
inline constexpr std::int64_t kMinGpuShmGib = 8;
inline constexpr std::int64_t kMinCpuShmGib = 1;

struct RunLineOptions {
  std::string image;                 // `bevenv/bevfusion:0123456789ab`
  bool gpu = true;                   // the lock targets CUDA
  std::int64_t workers_per_gpu = 4;  // DataLoader workers of one training process
  std::int64_t gpus = 1;             // training processes per container
  bool ipc_host = false;             // share the host's IPC namespace instead of sizing /dev/shm
  std::string workdir;               // the project directory in the image; empty: none
};

// max(minimum, workers_per_gpu x gpus x kShmGibPerWorker), minimum 8 GiB with GPUs, 1 without.
std::int64_t shm_size_gib(const RunLineOptions& options);

std::string docker_run_line(const RunLineOptions& options);
std::string podman_run_line(const RunLineOptions& options);
// A POSIX sh script that runs the image with docker when it is installed, else with podman.
std::string run_script(const RunLineOptions& options);

}  // namespace bevenv::containers
