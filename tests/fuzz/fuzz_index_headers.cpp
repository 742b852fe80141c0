// Fuzzes HTTP response header handling: each input line is a header line as libcurl hands it
// over. Whatever a server sends, the numbers Transport acts on stay in bounds: a Retry-After
// wait is never negative nor longer than a day, a retry delay never passes its cap, max-age
// never negative.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "http_headers.hpp"

using bevenv::fuzz::require;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

constexpr std::int64_t kNow = 1700000000;

void check_wait(const std::optional<seconds>& wait) {
  if (!wait) return;
  require(wait->count() >= 0, "a negative Retry-After");
  require(*wait <= seconds(24 * 3600), "a Retry-After past a day");
  const milliseconds cap(60000);
  for (int attempt : {0, 3, 40}) {
    const auto delay = bevenv::index::retry_delay(milliseconds(250), attempt, wait, cap);
    require(delay >= milliseconds(0) && delay <= cap, "a retry delay past its cap");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  bevenv::index::ResponseHeaders headers;
  std::size_t begin = 0;
  while (begin < input.size()) {
    std::size_t end = input.find('\n', begin);
    end = end == std::string_view::npos ? input.size() : end + 1;
    const std::string_view line = input.substr(begin, end - begin);
    bevenv::index::apply_header_line(headers, line, kNow);
    require(headers.status == 0 || (headers.status >= 100 && headers.status <= 999),
            "a status that is not three digits");
    require(headers.max_age >= 0, "a negative max-age");
    check_wait(headers.retry_after);
    if (const auto colon = line.find(':'); colon != std::string_view::npos)
      check_wait(bevenv::index::parse_retry_after(line.substr(colon + 1), kNow));
    begin = end;
  }
  return 0;
}
