#pragma once
// What the fault-server tests share: the server, a fresh cache per case, settings with short
// timeouts, and a count of the files a case left behind.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>

#include "bevenv/index/settings.hpp"
#include "servers.hpp"

namespace bevenv::test {

inline const std::filesystem::path kWheels = BEVENV_INDEX_WHEELS;

// The loopback fault server (fault_server.py) serving the real six wheel under each fault's
// prefix; the test stops where the wheel was not fetched.
inline ServerProcess fault_server() {
  const auto wheel = kWheels / "six-1.16.0-py2.py3-none-any.whl";
  REQUIRE(std::filesystem::exists(wheel));
  return ServerProcess(
      {"python3", std::string(BEVENV_INDEX_SCRIPTS) + "/fault_server.py", wheel.string()}, true);
}

inline std::filesystem::path fresh_cache(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("bevenv-faults-" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

inline index::IndexSettings settings_for(const std::string& index_url,
                                         const std::filesystem::path& cache) {
  index::IndexSettings s;
  s.index_url = index_url;
  s.transport.cache_dir = cache;
  s.transport.stall_timeout = std::chrono::milliseconds(1000);
  s.transport.connect_timeout = std::chrono::milliseconds(2000);
  s.transport.retries = 2;
  s.transport.backoff = std::chrono::milliseconds(20);
  return s;
}

// Files left in the cache's temporary folder, and cached artifacts.
inline std::size_t count_files(const std::filesystem::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    n += e.is_regular_file() ? 1u : 0u;
  return n;
}

}  // namespace bevenv::test
