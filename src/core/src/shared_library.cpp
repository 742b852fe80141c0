#include "bevenv/core/shared_library.hpp"

#include <dlfcn.h>

#include <utility>

#include "bevenv/core/error.hpp"

namespace bevenv::core {

SharedLibrary::SharedLibrary(const char* name, std::string install)
    : name_(name), install_(std::move(install)) {
  // RTLD_LOCAL: the library's own dependencies (OpenSSL, for curl) stay out of the global
  // namespace.
  handle_ = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* error = ::dlerror();
    refuse("could not be loaded" + (error != nullptr ? ": " + std::string(error) : std::string()));
  }
}

void SharedLibrary::refuse(const std::string& what) const {
  throw Error(ExitCode::failure, "`" + name_ + "` " + what, "fix: " + install_);
}

void* SharedLibrary::find(const char* symbol) const { return ::dlsym(handle_, symbol); }

}  // namespace bevenv::core
