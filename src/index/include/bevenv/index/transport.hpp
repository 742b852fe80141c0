#pragma once
// HTTP(S) through libcurl: parallel transfers on one multi handle (connections are reused),
// timeouts, bounded retries with exponential backoff, and the on-disk cache: pages revalidated
// by ETag/Last-Modified (or served while Cache-Control max-age holds), artifacts stored by
// sha256 only after their hash was checked.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/index/progress.hpp"

namespace bevenv::index {

struct TransportSettings {
  std::filesystem::path cache_dir;  // `$XDG_CACHE_HOME/bevenv`; empty: no cache
  bool offline = false;             // only the cache; a miss is an error
  std::chrono::milliseconds connect_timeout{15000};
  // A transfer slower than `low_speed_limit` bytes a second for this long is abandoned (and
  // retried): a server that stalls, or drips a byte at a time, is not waited on for ever.
  std::chrono::milliseconds stall_timeout{30000};
  std::uint32_t low_speed_limit = 1024;
  // Deadlines, retries and waits included: for one page, metadata file or HEAD; for one
  // artifact download; for one batch of transfers (a phase of a command, such as "index pages").
  std::chrono::milliseconds page_deadline{60000};
  std::chrono::milliseconds download_deadline{1800000};
  std::chrono::milliseconds phase_deadline{3600000};
  int retries = 3;                         // further attempts after the first
  std::chrono::milliseconds backoff{250};  // doubled after each failed attempt
  // A `Retry-After` longer than this is waited for this long only.
  std::chrono::milliseconds retry_after_cap{60000};
  // Bodies kept in memory: an index or find-links page, a PEP 658 file (artifacts stream to
  // disk and have no limit).
  std::uint64_t max_page_size = 32ull << 20;
  std::uint64_t max_metadata_size = 8ull << 20;
  // A partial download (`tmp/*.part`) that no live process holds is removed by the next
  // Transport that opens the cache.
  std::size_t max_parallel = 16;
  std::string proxy;      // empty: libcurl reads http_proxy/https_proxy/no_proxy
  std::string ca_bundle;  // empty: the system's CA store
  std::string user_agent = "bevenv";
};

// A page (index page, find-links page, metadata file) as fetched or as cached.
struct Page {
  std::string url;
  std::string body;
  std::string content_type;
  bool from_cache = false;  // served without a full transfer (fresh, 304 or offline)
  // Validators to keep with the page when it is committed to the cache.
  std::string etag;
  std::string last_modified;
  std::int64_t max_age = 0;
  // The body's sha256, set by a caller that checked it against the index before commit():
  // kept with the page, so a copy served from the cache need not be hashed again.
  std::string body_sha256;
  // Empty: `body` is what the server sent. Otherwise the cache area of the caller's parsed form
  // (PageRequest::form): `body` holds that form, read from the cache or set by the caller before
  // commit(), which then keeps the form instead of the text.
  std::string form;
};

struct PageRequest {
  std::string url;
  std::string accept;          // Accept header; empty: none
  bool metadata_file = false;  // a PEP 658 file: `max_metadata_size` instead of `max_page_size`
  // Where the caller keeps its parsed form of the page (Page::form); empty: the text is kept.
  std::string form;
};

// An artifact to download into the cache. With `sha256` set, the bytes must hash to it.
struct FileRequest {
  std::string url;
  std::string filename;
  std::string sha256;
};

struct DownloadedFile {
  std::filesystem::path path;  // inside the cache
  std::string sha256;
  std::uint64_t size = 0;
};

// The size of a remote file without its body (HEAD), cached by URL.
struct SizeRequest {
  std::string url;
};

// Some bytes of a remote file (HTTP Range): `length` bytes from `first`, or with `suffix` the
// file's last `length` bytes (its size need not be known). Never cached here.
struct RangeRequest {
  std::string url;
  std::uint64_t first = 0;
  std::uint64_t length = 0;
  bool suffix = false;
};

struct RangeReply {
  // The server answered 200 with the whole file: the transfer was abandoned at its first bytes,
  // and `body` is empty. The caller downloads the file instead.
  bool ignored = false;
  std::uint64_t offset = 0;     // where `body` starts in the file
  std::uint64_t file_size = 0;  // from Content-Range
  std::string body;
};

// A remote file read as it arrives, by a sink that may stop the transfer early (an sdist's
// PKG-INFO is often near its start). The sink sees the bytes of a 200 answer only; `attempt`
// grows when a failed transfer starts over from the first byte. Never cached here.
struct StreamRequest {
  std::string url;
  std::function<bool(std::string_view chunk, int attempt)> sink;  // false: stop the transfer
};

struct StreamReply {
  bool stopped = false;     // the sink stopped it
  std::uint64_t bytes = 0;  // received in the last attempt
};

class Transport {
 public:
  explicit Transport(TransportSettings settings, Reporter* reporter = nullptr);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  const TransportSettings& settings() const { return settings_; }

  // Fetches every page in parallel. An error names the URL and what went wrong after the
  // last attempt ("HTTP 404", "timed out after 3 attempts"...); errors may end with a line
  // `hint: ...` saying what to do (split_hint() takes it apart). Pages are not cached here:
  // call commit() once the body parsed, so a malformed page never lands in the cache.
  std::vector<core::Expected<Page, std::string>> get(const std::vector<PageRequest>& requests,
                                                     std::string_view what = "pages");
  void commit(const Page& page);
  // Drops the cached copy of `url` kept in `form` (a parsed form that no longer reads).
  void forget(const std::string& url, const std::string& form);

  // Downloads artifacts in parallel into the cache (written to a temporary file, checked,
  // renamed). A sha256 mismatch is an error naming the URL, the expected and the actual hash.
  std::vector<core::Expected<DownloadedFile, std::string>> download(
      const std::vector<FileRequest>& requests, std::string_view what = "downloads");

  // Content-Length by HEAD, for sources that publish no size.
  std::vector<std::optional<std::uint64_t>> sizes(const std::vector<std::string>& urls);

  // Byte ranges in parallel (206 answers); a server that ignores ranges gives `ignored`.
  std::vector<core::Expected<RangeReply, std::string>> get_ranges(
      const std::vector<RangeRequest>& requests, std::string_view what = "byte ranges");

  // Streams in parallel; an error names the URL, as for pages.
  std::vector<core::Expected<StreamReply, std::string>> stream(
      const std::vector<StreamRequest>& requests, std::string_view what = "streams");

  // Counters for reports and tests.
  std::size_t network_transfers() const { return transfers_; }
  std::uint64_t bytes_received() const { return bytes_received_; }

  struct Job;  // one transfer; defined in transport.cpp

 private:
  struct Batch;  // one run()'s state; defined in transport.cpp
  void run(std::vector<Job*>& jobs, std::string_view what);
  // Runs the transfers made (`jobs` is null where an answer needed none) as one batch.
  void run_made(const std::vector<std::unique_ptr<Job>>& jobs, std::string_view what);
  // One answer per request: `make(request, answer)` returns the request's transfer, or nullptr
  // where it set `answer` itself (a cache hit). Under --offline no transfer runs: its answer is
  // `offline(URL)`. The transfers run as one batch, then each one's answer comes from `finish`,
  // or is "`URL`: error" where it failed (transport_job.hpp).
  template <class Reply, class Request, class Make, class Finish>
  std::vector<core::Expected<Reply, std::string>> answer_each(
      const std::vector<Request>& requests, std::string_view what, Make make,
      std::string (*offline)(const std::string& url), Finish finish);
  void prepare(Job& job);
  void* multi();  // the multi handle, made (and libcurl loaded) on first use

  TransportSettings settings_;
  Reporter* reporter_;
  SilentReporter silent_;
  void* multi_ = nullptr;  // null until a transfer runs
  std::vector<void*> idle_handles_;
  std::size_t transfers_ = 0;
  std::uint64_t bytes_received_ = 0;
  std::uint64_t temp_counter_ = 0;
};

// An error of Transport or IndexClient as {message, hint}: the hint is the text after a final
// "\nhint: ", empty when there is none.
std::pair<std::string, std::string> split_hint(const std::string& error);

// `$XDG_CACHE_HOME/bevenv`, else `$HOME/.cache/bevenv`.
std::filesystem::path default_cache_dir();

}  // namespace bevenv::index
