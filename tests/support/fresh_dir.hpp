#pragma once
// A test's own empty folder under the temporary directory, whatever an earlier run left there.
#include <unistd.h>

#include <filesystem>
#include <string>

namespace bevenv::testing {

// `bevenv-test-NAME-PID`, emptied and created: the process id keeps test binaries that ctest
// runs at once out of each other's folders.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("bevenv-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace bevenv::testing
