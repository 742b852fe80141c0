#include "dynlib.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace bevenv::probe_tool {

bool DynamicLibrary::open_first(const std::vector<std::string>& candidates) {
  for (const auto& candidate : candidates) {
    tried_.push_back(candidate);
    void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      handle_ = handle;
      path_ = candidate;
      // Report the file the loader actually picked, not just the name asked for.
      char origin[4096] = {};
      if (::dlinfo(handle, RTLD_DI_ORIGIN, origin) == 0 &&
          candidate.find('/') == std::string::npos) {
        path_ = std::string(origin) + "/" + candidate;
      }
      return true;
    }
    const char* error = ::dlerror();
    if (error != nullptr) last_error_ = error;
  }
  return false;
}

nlohmann::json DynamicLibrary::missing_report(const std::string& library) const {
  return {{"status", "missing"},
          {"library", library},
          {"tried", tried_},
          {"error", last_error_.empty() ? "not found" : last_error_}};
}

void* DynamicLibrary::symbol(const char* name) const {
  return handle_ == nullptr ? nullptr : ::dlsym(handle_, name);
}

std::vector<std::string> library_candidates(const std::vector<std::string>& names,
                                            const std::vector<std::string>& dirs,
                                            bool default_first) {
  std::vector<std::string> out;
  if (default_first) out = names;
  for (const auto& dir : dirs) {
    if (dir.empty()) continue;
    for (const auto& name : names) out.push_back(dir + "/" + name);
  }
  if (!default_first) out.insert(out.end(), names.begin(), names.end());
  return out;
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::vector<std::string> driver_library_dirs() {
  return {"/usr/local/nvidia/lib64", "/usr/lib/wsl/lib", "/usr/lib/x86_64-linux-gnu",
          "/usr/lib/aarch64-linux-gnu", "/usr/lib64"};
}

std::vector<std::string> toolkit_library_dirs() {
  std::vector<std::string> dirs;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const std::string root = env_or_empty(variable);
    if (!root.empty()) dirs.push_back(root + "/lib64");
  }
  dirs.push_back("/usr/local/cuda/lib64");
  return dirs;
}

}  // namespace bevenv::probe_tool
