// bevenv-static's stand-in for shared_library.cpp: a static program cannot load a shared library
// built for another glibc, so it opens none, and its link names no dlopen. Linked before the
// module archives, this definition keeps the archive's dlopen caller out of the link.
#include "bevenv/core/shared_library.hpp"

namespace bevenv::core {

void* open_shared_library(const char* /*name*/, std::string& why) {
  why = "this program is linked statically";
  return nullptr;
}

}  // namespace bevenv::core
