#include "bevenv/util/exit_time.hpp"

#include <atomic>
#include <mutex>
#include <vector>

namespace bevenv::util {
namespace {

std::atomic<bool> keeping{false};

}  // namespace

void keep_values_until_exit(bool on) { keeping = on; }

bool keeping_values_until_exit() { return keeping; }

void remember_until_exit(void* value) {
  static std::mutex guard;
  // Never destroyed: a static vector would free its buffer before a leak checker's exit-time
  // scan, and the values would then look leaked.
  static auto* kept = new std::vector<void*>();
  const std::lock_guard<std::mutex> lock(guard);
  kept->push_back(value);
}

}  // namespace bevenv::util
