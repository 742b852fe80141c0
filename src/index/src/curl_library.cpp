#include "curl_library.hpp"

#include <sys/auxv.h>

#include <string>

#include "bevenv/core/error.hpp"
#include "bevenv/core/shared_library.hpp"

namespace bevenv::index::curl {
namespace {

constexpr const char* kLibrary = "libcurl.so.4";
constexpr const char* kInstall =
    "install libcurl (Debian and Ubuntu: `apt-get install libcurl4`; Fedora: `dnf install "
    "libcurl`), or lock with `--offline`";
// Every function of the table is in libcurl since 7.66, which added `curl_multi_poll`.
constexpr const char* kNeeds = "libcurl 7.66 or newer";

// No dynamic loader started this process (AT_BASE is its address): bevenv-static. glibc's
// dlopen inside a static program needs the very glibc it was linked with, so libcurl is not tried.
bool statically_linked() { return ::getauxval(AT_BASE) == 0; }

Api load() {
  if (statically_linked())
    throw core::Error(core::ExitCode::failure,
                      "this single-file `bevenv` reaches no package index: it is linked "
                      "statically and cannot load `" +
                          std::string(kLibrary) + "`",
                      "lock from the matrix alone (no `--index-url`, `--extra-index-url` or "
                      "remote `--find-links`), or use the `bevenv` built with shared libraries "
                      "(scripts/build.sh) where an index is needed");
  const core::SharedLibrary library(kLibrary, kInstall);
  Api api{};
  library.bind("curl_global_init", api.global_init, kNeeds);
  library.bind("curl_easy_init", api.easy_init, kNeeds);
  library.bind("curl_easy_reset", api.easy_reset, kNeeds);
  library.bind("curl_easy_cleanup", api.easy_cleanup, kNeeds);
  library.bind("curl_easy_setopt", api.easy_setopt, kNeeds);
  library.bind("curl_easy_getinfo", api.easy_getinfo, kNeeds);
  library.bind("curl_easy_strerror", api.easy_strerror, kNeeds);
  library.bind("curl_multi_init", api.multi_init, kNeeds);
  library.bind("curl_multi_setopt", api.multi_setopt, kNeeds);
  library.bind("curl_multi_cleanup", api.multi_cleanup, kNeeds);
  library.bind("curl_multi_add_handle", api.multi_add_handle, kNeeds);
  library.bind("curl_multi_remove_handle", api.multi_remove_handle, kNeeds);
  library.bind("curl_multi_perform", api.multi_perform, kNeeds);
  library.bind("curl_multi_poll", api.multi_poll, kNeeds);
  library.bind("curl_multi_info_read", api.multi_info_read, kNeeds);
  library.bind("curl_slist_append", api.slist_append, kNeeds);
  library.bind("curl_slist_free_all", api.slist_free_all, kNeeds);
  library.bind("curl_getdate", api.getdate, kNeeds);
  if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) library.refuse("did not initialise");
  return api;
}

}  // namespace

// Never unloaded: libcurl's atexit handlers and OpenSSL's would outlive a dlclose.
const Api& api() { return core::loaded_once<load>(); }

}  // namespace bevenv::index::curl
