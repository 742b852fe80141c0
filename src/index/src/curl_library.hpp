#pragma once
// libcurl, loaded the first time a transfer needs it. Linked at start-up it cost every command
// about 8 ms (it brings some thirty libraries: TLS, Kerberos, LDAP, IDN), which an offline lock,
// `why`, `export` or `doctor --log` never use. The prototypes are curl.h's own, so a call through
// the table is checked as a direct call would be (curl.h's option type checks aside).
#include <curl/curl.h>

namespace bevenv::index::curl {

struct Api {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_setopt) multi_setopt;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_perform) multi_perform;
  decltype(&::curl_multi_poll) multi_poll;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_getdate) getdate;
};

// The loaded library, initialised once (`curl_global_init`) and kept for the process. Throws
// core::Error (failure) naming the library and the package that provides it when it cannot be
// loaded or lacks a function (libcurl older than 7.66, which added `curl_multi_poll`).
const Api& api();

}  // namespace bevenv::index::curl
