// Times loading the embedded matrix (target: under 20 ms): the first load of the process, then
// the median and the fastest of several more; once whole (what most commands read), once
// without the releases a newer one stands for (an offline lock) and once without the generated
// layer (a lock whose package sources decide what exists); exits 1 when the embedded matrix
// does not load.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "bevenv/matrix/loader.hpp"

namespace {

// Loads the matrix kRuns times and prints one line; false when it does not load.
bool time_loads(const char* label, const bevenv::matrix::LoadOptions& options) {
  using Clock = std::chrono::steady_clock;
  constexpr int kRuns = 25;
  std::vector<double> millis;
  std::size_t versions = 0;
  for (int run = 0; run < kRuns; ++run) {
    const auto start = Clock::now();
    auto result = bevenv::matrix::load(options);
    const auto stop = Clock::now();
    if (!result) {
      for (const auto& d : result.error()) std::fprintf(stderr, "%s\n", d.to_string().c_str());
      return false;
    }
    versions = result->version_count();
    millis.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  // The first load is what a command pays: the heap is new and every page it touches faults.
  const double first = millis.front();
  std::sort(millis.begin(), millis.end());
  std::printf(
      "matrix_load %s: %zu package versions; first %.2f ms; then median %.2f ms, best %.2f ms "
      "over %d runs\n",
      label, versions, first, millis[millis.size() / 2], millis.front(), kRuns);
  return true;
}

}  // namespace

int main() {
  // The smaller loads run later: their "first" then finds the heap the whole load grew.
  bevenv::matrix::LoadOptions whole;
  bevenv::matrix::LoadOptions offline_lock;
  offline_lock.without_stood_for = true;
  bevenv::matrix::LoadOptions sourced_lock;
  sourced_lock.without_generated_releases = true;
  return time_loads("(whole)", whole) && time_loads("(without releases stood for)", offline_lock) &&
                 time_loads("(without generated releases)", sourced_lock)
             ? 0
             : 1;
}
