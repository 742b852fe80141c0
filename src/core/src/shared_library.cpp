#include "bevenv/core/shared_library.hpp"

#include <dlfcn.h>

namespace bevenv::core {

void* open_shared_library(const char* name, std::string& why) {
  // RTLD_LOCAL: the library's own dependencies (OpenSSL, for curl) stay out of the global
  // namespace.
  void* library = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = ::dlerror();
    why = error != nullptr ? error : "";
  }
  return library;
}

}  // namespace bevenv::core
