#pragma once
// What Transport keeps of an HTTP response's header block, and how long a server asks a client
// to wait before it retries (private to the index module). Header values come from whoever
// answers, so every number is parsed strictly and bounded.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bevenv::index {

struct ResponseHeaders {
  long status = 0;
  std::string etag, last_modified, content_type;
  std::int64_t max_age = 0;  // seconds; 0 when absent, negative, or with no-cache/no-store
  std::optional<std::uint64_t> content_length;
  std::string content_range;                        // a range request's answer, as sent
  std::optional<std::chrono::seconds> retry_after;  // never negative
};

// Applies one header line, as libcurl hands it over (with its CRLF). A status line starts a
// new response (after a redirect or `100 Continue`) and forgets the previous one's headers.
// `now` (seconds since the epoch) turns an HTTP-date `Retry-After` into a wait.
void apply_header_line(ResponseHeaders& headers, std::string_view line, std::int64_t now);

// `Retry-After: 120` or `Retry-After: Fri, 31 Dec 1999 23:59:59 GMT` as a wait from `now`;
// a date in the past is no wait. Nullopt for anything else.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value, std::int64_t now);

// The wait before attempt `attempt + 1` (0-based `attempt` failed): exponential backoff from
// `backoff`, or what the server asked for when longer, but never more than `cap`.
std::chrono::milliseconds retry_delay(std::chrono::milliseconds backoff, int attempt,
                                      std::optional<std::chrono::seconds> retry_after,
                                      std::chrono::milliseconds cap);

}  // namespace bevenv::index
