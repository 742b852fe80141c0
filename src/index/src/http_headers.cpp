#include "http_headers.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "bevenv/util/text.hpp"
#include "curl_library.hpp"

namespace bevenv::index {
namespace {

// Decimal digits only, the whole text: no sign, no spaces, no overflow.
std::optional<std::uint64_t> digits(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The number after `max-age=` in a Cache-Control value; 0 when absent or not a number.
std::int64_t max_age_of(const std::string& value) {
  if (value.find("no-cache") != std::string::npos || value.find("no-store") != std::string::npos)
    return 0;
  const auto at = value.find("max-age=");
  if (at == std::string::npos) return 0;
  std::string_view rest = std::string_view(value).substr(at + 8);
  rest = rest.substr(0, rest.find_first_not_of("0123456789"));
  const auto seconds = digits(rest);
  // Longer than ten years is as good as forever; the bound keeps `now + max_age` finite.
  constexpr std::uint64_t kMax = 10ull * 365 * 24 * 3600;
  return seconds ? static_cast<std::int64_t>(std::min(*seconds, kMax)) : 0;
}

long status_of(std::string_view line) {
  const auto space = line.find(' ');
  if (space == std::string_view::npos) return 0;
  const auto code = digits(line.substr(space + 1, 3));
  return code && *code >= 100 ? static_cast<long>(*code) : 0;
}

}  // namespace

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value, std::int64_t now) {
  value = util::trim(value);
  if (value.empty()) return std::nullopt;
  // A day is more than any caller waits; the bound keeps the arithmetic finite.
  constexpr std::int64_t kMax = 24 * 3600;
  if (value.front() >= '0' && value.front() <= '9') {
    const auto seconds = digits(value);
    if (!seconds) return std::nullopt;
    return std::chrono::seconds(std::min<std::uint64_t>(*seconds, kMax));
  }
  // libcurl reads the three date forms HTTP allows (RFC 1123, RFC 850, asctime).
  const std::string text(value);
  const time_t when = curl::api().getdate(text.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  const std::int64_t wait = static_cast<std::int64_t>(when) - now;
  return std::chrono::seconds(std::clamp<std::int64_t>(wait, 0, kMax));
}

std::chrono::milliseconds retry_delay(std::chrono::milliseconds backoff, int attempt,
                                      std::optional<std::chrono::seconds> retry_after,
                                      std::chrono::milliseconds cap) {
  // Doubling stops at 2^16: pip.conf may ask for many retries, and the shift must not overflow.
  auto delay = backoff * (std::int64_t{1} << std::clamp(attempt, 0, 16));
  if (retry_after) {
    delay = std::max(delay, std::chrono::duration_cast<std::chrono::milliseconds>(*retry_after));
  }
  return std::min(delay, std::max(cap, backoff));
}

void apply_header_line(ResponseHeaders& headers, std::string_view line, std::int64_t now) {
  if (line.starts_with("HTTP/")) {
    headers = ResponseHeaders{};
    headers.status = status_of(line);
    return;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return;
  const std::string key = util::ascii_lower(util::trim(line.substr(0, colon)));
  const std::string_view value = util::trim(line.substr(colon + 1));
  if (key == "etag") headers.etag = value;
  if (key == "last-modified") headers.last_modified = value;
  if (key == "content-type") headers.content_type = value;
  if (key == "content-length") headers.content_length = digits(value);
  if (key == "content-range") headers.content_range = value;
  if (key == "cache-control") headers.max_age = max_age_of(util::ascii_lower(value));
  if (key == "retry-after") headers.retry_after = parse_retry_after(value, now);
}

}  // namespace bevenv::index
