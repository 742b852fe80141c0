#pragma once
// Which failed transfers are worth another attempt, as pure functions of what libcurl and the
// server answered (private to the index module). Transport::run applies them; how long to wait
// before the next attempt is retry_delay() in http_headers.hpp.
#include <curl/curl.h>

namespace bevenv::index {

// Whether a transfer that libcurl ended with `code` may succeed when tried again: connections
// refused, reset or timed out, names that did not resolve, bodies cut short, HTTP/2 stream and
// TLS handshake errors. A malformed URL, an unsupported scheme or a refused certificate fails
// the same way every time.
bool retryable(CURLcode code);

// What an HTTP status says of a response that arrived: usable (below 400; 0 for `file://`
// transfers, which have none), worth another attempt (5xx, 429 Too Many Requests, 408 Request
// Timeout: the server may answer otherwise later), or final (any other 4xx).
enum class StatusVerdict { usable, retry, final };
StatusVerdict judge_status(long status);

}  // namespace bevenv::index
