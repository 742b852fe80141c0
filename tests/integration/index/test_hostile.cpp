// A hostile or broken index never harms: a stall or a drip ends by its deadline, Retry-After is
// honoured but capped, huge pages are refused, hashes and METADATA that lie are errors, and a
// download killed with SIGKILL leaves nothing that outlives the next run.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bevenv/index/client.hpp"
#include "fault_helpers.hpp"
#include "servers.hpp"

using namespace bevenv;
using namespace bevenv::test;
using std::chrono::milliseconds;
namespace fs = std::filesystem;

namespace {

const std::string kWheel = "six-1.16.0-py2.py3-none-any.whl";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Listed {
  core::Expected<index::Listing, std::string> listing = core::unexpected(std::string());
  double seconds = 0;
};

Listed list_six(const index::IndexSettings& settings) {
  index::IndexClient client(settings);
  const auto start = std::chrono::steady_clock::now();
  auto listed = client.list({"six"});
  return {std::move(listed.at("six")), seconds_since(start)};
}

// The listing failed in under `seconds`, its error saying `says`.
void check_failed_within(const Listed& out, double seconds, const std::string& says) {
  REQUIRE_FALSE(out.listing);
  INFO(out.listing.error());
  CHECK(out.seconds < seconds);
  CHECK(out.listing.error().find(says) != std::string::npos);
}

// The listing was refused, its error saying `says`, and nothing of it was kept in `cache`.
void check_refused_keeping_nothing(const Listed& out, const fs::path& cache,
                                   const std::string& says) {
  REQUIRE_FALSE(out.listing);
  INFO(out.listing.error());
  CHECK(out.listing.error().find(says) != std::string::npos);
  CHECK(count_files(cache) == 0);
}

// The metadata of the one file `six` lists.
core::Expected<index::CoreMetadata, std::string> metadata_of_six(
    const index::IndexSettings& settings) {
  index::IndexClient client(settings);
  auto listed = client.list({"six"});
  REQUIRE(listed.at("six"));
  REQUIRE(listed.at("six")->artifacts.size() == 1);
  return std::move(client.metadata(listed.at("six")->artifacts).at(0));
}

// AddressSanitizer keeps freed blocks in quarantine and adds shadow memory: each buffer the page
// grew through stays resident, so the high-water mark sums the growth steps instead of keeping
// the largest. The bound stays below the 64 MiB page either way.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BEVENV_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BEVENV_TEST_UNDER_ASAN 1
#endif
#ifdef BEVENV_TEST_UNDER_ASAN
constexpr std::size_t kPageMemoryFactor = 5;
#else
constexpr std::size_t kPageMemoryFactor = 3;
#endif

std::size_t max_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::size_t>(usage.ru_maxrss);
}

std::size_t count_parts(const fs::path& cache) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(cache / "tmp", ec))
    n += e.path().extension() == ".part" ? 1u : 0u;
  return n;
}

}  // namespace

TEST_CASE("a stalled or dripping index ends by its deadline", "[index][hostile]") {
  const test::ServerProcess server = fault_server();

  SECTION("a stall: the deadline per request cuts the retries short") {
    auto s = settings_for(server.url("/stall/simple"), fresh_cache("deadline-stall"));
    s.transport.retries = 5;  // 6 stalls of 1 s without a deadline
    s.transport.page_deadline = milliseconds(1500);
    const auto out = list_six(s);
    check_failed_within(out, 2.5, "not done within the 1.5 s deadline per request");
    INFO(out.listing.error());
    CHECK(out.listing.error().find("`" + server.url("/stall/simple/six/") + "`") !=
          std::string::npos);
    CHECK(index::split_hint(out.listing.error()).second.find("`BEVENV_INDEX_DEADLINE`") !=
          std::string::npos);
  }
  SECTION("a drip of 1 byte/s: below the speed limit, abandoned after the stall timeout") {
    auto s = settings_for(server.url("/drip/simple"), fresh_cache("drip"));
    s.transport.retries = 1;
    // Two attempts of about 2 s; without the limit, 15 s each.
    check_failed_within(list_six(s), 6, "under 1024 bytes/s for 1 s) after 2 attempts");
  }
  SECTION("a drip ends at the deadline per request") {
    auto s = settings_for(server.url("/drip/simple"), fresh_cache("drip-deadline"));
    s.transport.stall_timeout = milliseconds(30000);
    s.transport.page_deadline = milliseconds(2000);
    check_failed_within(list_six(s), 3, "not done within the 2 s deadline per request");
  }
  SECTION("the phase deadline bounds a whole batch") {
    auto s = settings_for(server.url("/stall/simple"), fresh_cache("phase"));
    s.transport.stall_timeout = milliseconds(30000);
    s.transport.phase_deadline = milliseconds(1000);
    const auto out = list_six(s);
    check_failed_within(out, 2, "the 1 s deadline of the `index pages` phase");
    CHECK(index::split_hint(out.listing.error()).second.find("`BEVENV_PHASE_DEADLINE`") !=
          std::string::npos);
  }
}

TEST_CASE("Retry-After is honoured, within a cap and the deadline", "[index][hostile]") {
  const test::ServerProcess server = fault_server();

  SECTION("seconds") {
    const auto out =
        list_six(settings_for(server.url("/retry-after-once/simple"), fresh_cache("retry-after")));
    INFO((out.listing ? "" : out.listing.error()));
    CHECK(out.listing);
    CHECK(out.seconds >= 0.95);  // the backoff alone is 20 ms
    CHECK(out.seconds < 3);
  }
  SECTION("an HTTP-date") {
    const auto out = list_six(
        settings_for(server.url("/retry-after-date-once/simple"), fresh_cache("retry-after-date")));
    INFO((out.listing ? "" : out.listing.error()));
    CHECK(out.listing);
    CHECK(out.seconds >= 0.9);  // two seconds ahead, in whole seconds
    CHECK(out.seconds < 4);
  }
  SECTION("an hour is capped") {
    auto s = settings_for(server.url("/retry-after-long-once/simple"), fresh_cache("ra-cap"));
    s.transport.retry_after_cap = milliseconds(300);
    const auto out = list_six(s);
    INFO((out.listing ? "" : out.listing.error()));
    CHECK(out.listing);
    CHECK(out.seconds >= 0.28);
    CHECK(out.seconds < 3);
  }
  SECTION("a wait past the deadline fails now, saying why") {
    auto s = settings_for(server.url("/retry-after-long/simple"), fresh_cache("ra-late"));
    s.transport.retry_after_cap = milliseconds(10000);
    s.transport.page_deadline = milliseconds(1000);
    check_failed_within(list_six(s), 1, "HTTP 429; a retry in 10 s would pass the 1 s deadline");
  }
}

TEST_CASE("pages and metadata files have a size limit; artifacts stream", "[index][hostile]") {
  const test::ServerProcess server = fault_server();

  SECTION("a 64 MiB page is refused at the default 32 MiB limit, from its Content-Length") {
    const auto cache = fresh_cache("huge-page");
    const auto out = list_six(settings_for(server.url("/huge-page/simple"), cache));
    check_refused_keeping_nothing(
        out, cache,
        "`" + server.url("/huge-page/simple/six/") + "`: the page is larger than the 32 MiB limit");
    CHECK(index::split_hint(out.listing.error()).second.find("`BEVENV_MAX_PAGE_MB`") !=
          std::string::npos);
  }
  SECTION("a 64 MiB page without Content-Length is refused at the byte past the limit") {
    const auto cache = fresh_cache("huge-page-unsized");
    auto s = settings_for(server.url("/huge-page-unsized/simple"), cache);
    s.transport.max_page_size = 8u << 20;
    const std::size_t rss_before = max_rss_kib();
    const auto out = list_six(s);
    check_refused_keeping_nothing(out, cache, "the page is larger than the 8 MiB limit");
    // The memory follows the limit, not the page (a high-water mark: this bounds it from above).
    CHECK(max_rss_kib() - rss_before < kPageMemoryFactor * 8 * 1024);
  }
  SECTION("a 64 MiB PEP 658 file is refused at the default 8 MiB") {
    const auto cache = fresh_cache("huge-metadata");
    const auto metadata = metadata_of_six(settings_for(server.url("/huge-metadata/simple"), cache));
    REQUIRE_FALSE(metadata);
    INFO(metadata.error());
    CHECK(metadata.error().find(kWheel + ".metadata`: the metadata file is larger than the 8 MiB "
                                         "limit") != std::string::npos);
    CHECK(count_files(cache / "listings-v1") == 1);  // the index page's listing
    CHECK(count_files(cache / "core-metadata-v1") + count_files(cache / "metadata-v2") == 0);
  }
}

TEST_CASE("hashes and metadata that lie are errors", "[index][hostile]") {
  const test::ServerProcess server = fault_server();

  SECTION("a sha256 of 40 hex digits names the page, the file and the field") {
    const auto cache = fresh_cache("short-hash");
    const auto out = list_six(settings_for(server.url("/short-hash/simple"), cache));
    check_refused_keeping_nothing(out, cache,
                                  "the index page `" + server.url("/short-hash/simple/six/") +
                                      "` is malformed: `" + kWheel +
                                      "`: `hashes.sha256` has 40 hex digits, not 64");
  }
  for (const std::string fault : {"wrong-metadata", "wrong-wheel"}) {
    SECTION("METADATA of another release: " + fault) {
      const auto cache = fresh_cache(fault);
      const auto metadata =
          metadata_of_six(settings_for(server.url("/" + fault + "/simple"), cache));
      REQUIRE_FALSE(metadata);
      INFO(metadata.error());
      CHECK(metadata.error().find("the metadata of `" + kWheel +
                                  "` is for `not-six 9.9`, not `six 1.16.0`") != std::string::npos);
      CHECK(count_files(cache / "listings-v1") == 1);  // the index page's listing
      CHECK(count_files(cache / "core-metadata-v1") + count_files(cache / "metadata-v2") == 0);
    }
  }
}

TEST_CASE("a download killed with SIGKILL leaves no .part behind the next one",
          "[index][hostile]") {
  const test::ServerProcess server = fault_server();
  const auto cache = fresh_cache("killed");
  const auto settings = settings_for(server.url("/ok/simple"), cache);

  // A bevenv that is killed mid-download: the stall holds it until the signal comes.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto patient = settings.transport;
    patient.stall_timeout = milliseconds(30000);  // one attempt, one part file, until killed
    index::Transport transport(patient);
    transport.download({{server.url("/stall/files/" + kWheel), kWheel, ""}});
    _exit(0);
  }
  for (int i = 0; i < 100 && count_parts(cache) == 0; ++i)
    std::this_thread::sleep_for(milliseconds(50));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  REQUIRE(count_parts(cache) == 1);

  // A live download of another process: its part file is locked, and must survive.
  const fs::path live = cache / "tmp" / "live.part";
  std::ofstream(live) << "partial";
  const int fd = open(live.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(flock(fd, LOCK_EX | LOCK_NB) == 0);

  index::Transport transport(settings.transport);
  const auto files = transport.download({{server.url("/ok/files/" + kWheel), kWheel, ""}});
  close(fd);
  REQUIRE(files[0]);
  CHECK(count_parts(cache) == 1);  // the live one only
  CHECK(fs::exists(live));
  CHECK(count_files(cache / "files-v2") == 1);
}
