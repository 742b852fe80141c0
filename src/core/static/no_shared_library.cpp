// bevenv-static's stand-in for shared_library.cpp: a static program cannot load a shared library
// built for another glibc, so it opens none, and its link names no dlopen. Linked before the
// module archives, these definitions keep the archive's dlopen caller out of the link.
#include <utility>

#include "bevenv/core/error.hpp"
#include "bevenv/core/shared_library.hpp"

namespace bevenv::core {

SharedLibrary::SharedLibrary(const char* name, std::string install)
    : name_(name), install_(std::move(install)) {
  refuse("could not be loaded: this program is linked statically");
}

void SharedLibrary::refuse(const std::string& what) const {
  throw Error(ExitCode::failure, "`" + name_ + "` " + what, "fix: " + install_);
}

void* SharedLibrary::find(const char* /*symbol*/) const { return nullptr; }

}  // namespace bevenv::core
