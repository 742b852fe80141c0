// Response headers as Transport reads them: Retry-After in both forms, bounded numbers.
#include <catch2/catch.hpp>
#include <ctime>

#include "http_headers.hpp"

using namespace bevenv;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

// `when` (seconds since the epoch) as an IMF-fixdate, the form HTTP servers send.
std::string http_date(std::int64_t when) {
  const std::time_t t = static_cast<std::time_t>(when);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return text;
}

}  // namespace

TEST_CASE("Retry-After: seconds and HTTP-date", "[index][headers]") {
  const std::int64_t now = 1700000000;
  CHECK(index::parse_retry_after("120", now) == seconds(120));
  CHECK(index::parse_retry_after(" 0\r\n", now) == seconds(0));
  CHECK(index::parse_retry_after(http_date(now + 30), now) == seconds(30));
  CHECK(index::parse_retry_after(http_date(now - 30), now) == seconds(0));  // past: no wait
  CHECK(index::parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", now) == seconds(0));
  CHECK(index::parse_retry_after("-5", now) == std::nullopt);
  CHECK(index::parse_retry_after("5s", now) == std::nullopt);
  CHECK(index::parse_retry_after("soon", now) == std::nullopt);
  // Absurd values are bounded, so that adding them to a clock cannot overflow.
  CHECK(index::parse_retry_after("99999999999999999999999", now) == std::nullopt);
  CHECK(index::parse_retry_after("9999999999", now) <= seconds(24 * 3600));
}

TEST_CASE("retry delays: backoff, Retry-After, cap", "[index][headers]") {
  const milliseconds backoff(250);
  const milliseconds cap(60000);
  CHECK(index::retry_delay(backoff, 0, std::nullopt, cap) == milliseconds(250));
  CHECK(index::retry_delay(backoff, 2, std::nullopt, cap) == milliseconds(1000));
  CHECK(index::retry_delay(backoff, 0, seconds(5), cap) == milliseconds(5000));
  CHECK(index::retry_delay(backoff, 3, seconds(1), cap) == milliseconds(2000));  // backoff wins
  CHECK(index::retry_delay(backoff, 0, seconds(3600), cap) == cap);
  CHECK(index::retry_delay(backoff, 1000, std::nullopt, cap) == cap);  // no shift overflow
}

TEST_CASE("header lines: a status line starts afresh, numbers are strict", "[index][headers]") {
  index::ResponseHeaders h;
  index::apply_header_line(h, "HTTP/1.1 503 Service Unavailable\r\n", 0);
  index::apply_header_line(h, "Retry-After: 7\r\n", 0);
  index::apply_header_line(h, "Content-Length: 12\r\n", 0);
  index::apply_header_line(h, "ETag: \"x\"\r\n", 0);
  CHECK(h.status == 503);
  CHECK(h.retry_after == seconds(7));
  CHECK(h.content_length == 12u);
  index::apply_header_line(h, "HTTP/2 200\r\n", 0);
  CHECK(h.status == 200);
  CHECK_FALSE(h.retry_after);
  CHECK(h.etag.empty());
  index::apply_header_line(h, "content-length: -1\r\n", 0);
  CHECK_FALSE(h.content_length);
  index::apply_header_line(h, "Cache-Control: public, max-age=99999999999999999999\r\n", 0);
  CHECK(h.max_age == 0);
  index::apply_header_line(h, "Cache-Control: max-age=600\r\n", 0);
  CHECK(h.max_age == 600);
  index::apply_header_line(h, "Cache-Control: no-cache, max-age=600\r\n", 0);
  CHECK(h.max_age == 0);
  index::apply_header_line(h, "HTTP/1.1 abc\r\n", 0);
  CHECK(h.status == 0);
}
