// The retry policy of transfers (src/index/src/retry_policy.hpp): which libcurl results and HTTP
// statuses get another attempt. How long the wait is lies in test_http_headers.cpp.
#include <catch2/catch.hpp>

#include "retry_policy.hpp"

using namespace bevenv;
using index::StatusVerdict;

TEST_CASE("transient network failures are retried, lasting ones are not", "[index][retry]") {
  for (const CURLcode code :
       {CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY,
        CURLE_OPERATION_TIMEDOUT, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR,
        CURLE_RECV_ERROR, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR,
        CURLE_WRITE_ERROR}) {
    INFO("CURLcode " << static_cast<int>(code));
    CHECK(index::retryable(code));
  }
  for (const CURLcode code :
       {CURLE_OK, CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_PEER_FAILED_VERIFICATION,
        CURLE_TOO_MANY_REDIRECTS, CURLE_FILE_COULDNT_READ_FILE, CURLE_OUT_OF_MEMORY,
        CURLE_ABORTED_BY_CALLBACK}) {
    INFO("CURLcode " << static_cast<int>(code));
    CHECK_FALSE(index::retryable(code));
  }
}

TEST_CASE("server errors, 429 and 408 are retried; other client errors are final",
          "[index][retry]") {
  for (const long status : {500L, 502L, 503L, 504L, 599L, 429L, 408L})
    CHECK(index::judge_status(status) == StatusVerdict::retry);
  for (const long status : {400L, 401L, 403L, 404L, 410L, 416L, 499L})
    CHECK(index::judge_status(status) == StatusVerdict::final);
  // `file://` transfers have no status; redirects are followed before a status is judged.
  for (const long status : {0L, 200L, 206L, 304L, 399L})
    CHECK(index::judge_status(status) == StatusVerdict::usable);
}
