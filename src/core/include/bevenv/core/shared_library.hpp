#pragma once
// Opening a shared library by name, behind one function: `shared_library.cpp` calls dlopen for the
// `bevenv` built with shared libraries; bevenv-static links `static/no_shared_library.cpp`
// instead, so that its link names no dlopen (glibc warns about any dlopen in a static program).
// Its users: libcurl (src/index/src/curl_library.cpp) and libarchive (libarchive.cpp), each
// loaded when first needed instead of at every start.
#include <string>

namespace bevenv::core {

// The library's handle (RTLD_NOW | RTLD_LOCAL), or nullptr with the loader's reason in `why`.
void* open_shared_library(const char* name, std::string& why);

}  // namespace bevenv::core
