#pragma once
// dlopen with a search list and a record of every place tried, so that "library not found"
// can say where bevenv looked.
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bevenv::probe_tool {

// The library is never dlclose()d (driver libraries keep threads that outlive a dlclose), so the
// class needs no destructor, and a copy is as good as the original.
class DynamicLibrary {
 public:
  // Tries each candidate in order (bare names use the loader's default search path).
  bool open_first(const std::vector<std::string>& candidates);
  bool is_open() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  // Where it looked and what dlerror said, for a "missing" finding.
  nlohmann::json missing_report(const std::string& library) const;

  void* symbol(const char* name) const;
  // Loads a function pointer; false when the symbol does not exist in this library version.
  template <class Fn>
  bool load(Fn& out, const char* name) const {
    void* address = symbol(name);
    if (address == nullptr) return false;
    static_assert(sizeof(Fn) == sizeof(address));
    std::memcpy(&out, &address, sizeof out);  // object to function pointer without a cast
    return true;
  }
  // An entry point under its newer name (`cuDeviceTotalMem_v2`) or, from drivers older than
  // that name, its older one; false when neither exists.
  template <class Fn>
  bool load_either(Fn& out, const char* newer, const char* older) const {
    return load(out, newer) || load(out, older);
  }

 private:
  void* handle_ = nullptr;
  std::string path_;
  std::vector<std::string> tried_;
  std::string last_error_;
};

// Candidates for each name: bare name first when default_first, then each dir + "/" + name.
std::vector<std::string> library_candidates(const std::vector<std::string>& names,
                                            const std::vector<std::string>& dirs,
                                            bool default_first);
// Where NVIDIA's driver libraries live across distributions, containers and WSL.
std::vector<std::string> driver_library_dirs();
// $CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64 (those that are set).
std::vector<std::string> toolkit_library_dirs();
std::string env_or_empty(const char* name);

}  // namespace bevenv::probe_tool
