// The retry policy of transfers (retry_policy.hpp).
#include "retry_policy.hpp"

namespace bevenv::index {

bool retryable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_WRITE_ERROR:
      return true;
    default:
      return false;
  }
}

StatusVerdict judge_status(long status) {
  if (status >= 500 || status == 429 || status == 408) return StatusVerdict::retry;
  if (status >= 400) return StatusVerdict::final;
  return StatusVerdict::usable;
}

}  // namespace bevenv::index
