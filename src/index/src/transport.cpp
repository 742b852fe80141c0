#include "bevenv/index/transport.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <thread>

#include "bevenv/core/sha256.hpp"
#include "bevenv/util/env.hpp"
#include "cache.hpp"
#include "curl_library.hpp"
#include "retry_policy.hpp"
#include "transport_job.hpp"

namespace bevenv::index {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string describe(CURLcode code) {
  switch (code) {
    case CURLE_PARTIAL_FILE:
      return "the connection closed before the whole body arrived";
    case CURLE_GOT_NOTHING:
      return "the server closed the connection without answering";
    case CURLE_COULDNT_CONNECT:
      return "cannot connect";
    default:
      return curl::api().easy_strerror(code);
  }
}

}  // namespace

namespace {

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* job = static_cast<Transport::Job*>(user);
  const std::size_t n = size * count;
  job->received += n;
  if (job->kind == JobKind::file) {
    if (job->status != 200) return n;  // an error page: not the artifact
    job->hasher.update(data, n);
    return std::fwrite(data, 1, n, job->out) == n ? n : 0;
  }
  if (job->kind == JobKind::range && job->status == 200) {
    job->stopped = true;  // the whole file is coming: abandon it, the caller downloads
    return 0;
  }
  if (job->kind == JobKind::stream && job->status == 200) {
    if (job->sink(std::string_view(data, n), job->attempts)) return n;
    job->stopped = true;
    return 0;
  }
  // Pages live in memory: one past its limit is refused before it grows any further.
  if (job->body.size() + n > job->max_body) {
    job->too_large = true;
    return 0;
  }
  // Growth stops at the limit: a page near it must not cost twice the limit in memory.
  if (job->body.size() + n > job->body.capacity()) {
    job->body.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(
        job->max_body, std::max<std::uint64_t>(job->body.size() + n, 2 * job->body.capacity()))));
  }
  job->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* job = static_cast<Transport::Job*>(user);
  const std::size_t n = size * count;
  apply_header_line(*job, std::string_view(data, n), cache::now_seconds());
  // A page announced larger than its limit is refused before its body starts.
  if (job->kind == JobKind::page && job->status == 200 && job->content_length &&
      *job->content_length > job->max_body) {
    job->too_large = true;
    return 0;
  }
  return n;
}

// "60 s", "1.5 s", "0.25 s": durations in messages.
std::string seconds_text(std::chrono::milliseconds ms) {
  if (ms.count() % 1000 == 0 || ms.count() >= 10000)
    return std::to_string((ms.count() + 500) / 1000) + " s";
  char text[32];
  std::snprintf(text, sizeof text, "%.2g s", static_cast<double>(ms.count()) / 1000.0);
  return text;
}

// The deadlines that bound one batch of transfers: each transfer's own (retries and waits
// included), never later than the end of the batch's phase.
struct Deadlines {
  const TransportSettings& settings;
  Clock::time_point phase_end;
  std::string_view phase;

  std::chrono::milliseconds per_transfer(const Transport::Job& job) const {
    return job.kind == JobKind::file ? settings.download_deadline : settings.page_deadline;
  }
  Clock::time_point of(const Transport::Job& job, Clock::time_point start) const {
    return std::min(start + per_transfer(job), phase_end);
  }
  bool phase_bound(const Transport::Job& job) const { return *job.deadline == phase_end; }
  std::string name(const Transport::Job& job) const {
    if (phase_bound(job)) {
      return "the " + seconds_text(settings.phase_deadline) + " deadline of the `" +
             std::string(phase) + "` phase";
    }
    return "the " + seconds_text(per_transfer(job)) +
           (job.kind == JobKind::file ? " deadline per download" : " deadline per request");
  }
  std::string hint(const Transport::Job& job) const {
    const char* variable = phase_bound(job)            ? "BEVENV_PHASE_DEADLINE"
                           : job.kind == JobKind::file ? "BEVENV_DOWNLOAD_DEADLINE"
                                                       : "BEVENV_INDEX_DEADLINE";
    return "the server is slow or stalls; `" + std::string(variable) + "` (seconds) allows longer";
  }
  std::string passed(const Transport::Job& job) const {
    return "timed out: not done within " + name(job) + "\nhint: " + hint(job);
  }
};

// How an attempt ended: nothing wrong (empty failure), a failure worth retrying, or a final one.
struct Outcome {
  std::string failure;
  bool again = false;
  std::string hint;
};

Outcome too_large(const Transport::Job& job) {
  const std::uint64_t mib = job.max_body >> 20;
  const std::string limit =
      mib > 0 ? std::to_string(mib) + " MiB" : std::to_string(job.max_body) + " bytes";
  if (job.metadata_file) {
    return {"the metadata file is larger than the " + limit + " limit", false,
            "`BEVENV_MAX_METADATA_MB` raises the limit, for an index that really serves this"};
  }
  return {
      "the page is larger than the " + limit + " limit", false,
      "`BEVENV_MAX_PAGE_MB` raises the limit, for an index that really serves pages this large"};
}

// A timeout: the deadline, a connection that never came up, or a transfer below the speed limit.
Outcome timed_out(const Transport::Job& job, CURL* easy, const TransportSettings& settings,
                  const Deadlines& deadlines) {
  if (*job.deadline - Clock::now() < std::chrono::milliseconds(100)) {
    return {"timed out: not done within " + deadlines.name(job), false, deadlines.hint(job)};
  }
  curl_off_t connected = 0;
  curl::api().easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connected);
  if (connected == 0) return {"timed out connecting", true, {}};
  return {"timed out (under " + std::to_string(settings.low_speed_limit) + " bytes/s for " +
              seconds_text(settings.stall_timeout) + ")",
          true, "pip's `timeout` (seconds) sets how long a stall is waited for"};
}

Outcome judge(Transport::Job& job, CURL* easy, CURLcode code, const TransportSettings& settings,
              const Deadlines& deadlines) {
  if (job.too_large) return too_large(job);
  if (code == CURLE_OPERATION_TIMEDOUT) return timed_out(job, easy, settings, deadlines);
  // A transfer stopped on purpose (a range answered with the whole file, a stream that has what
  // it needs) ends with a write error that is no failure.
  if (code != CURLE_OK && !job.stopped) return {describe(code), retryable(code), {}};
  if (const StatusVerdict verdict = judge_status(job.status); verdict != StatusVerdict::usable)
    return {"HTTP " + std::to_string(job.status), verdict == StatusVerdict::retry, {}};
  if (job.kind != JobKind::file) return {};
  if (job.content_length && *job.content_length != job.received) {
    return {"the body was cut short", true, {}};
  }
  if (std::fflush(job.out) != 0 || std::ferror(job.out) != 0) {
    return {"cannot write `" + job.temp.string() + "`", false, "is the disk full?"};
  }
  return {};
}

}  // namespace

Transport::Transport(TransportSettings settings, Reporter* reporter)
    : settings_(std::move(settings)), reporter_(reporter != nullptr ? reporter : &silent_) {
  // What a killed bevenv left behind; the lock on each part file tells a live one's apart.
  cache::remove_stale_parts(settings_.cache_dir);
}

Transport::~Transport() {
  // Without handles no transfer was prepared, and libcurl may never have been loaded.
  for (void* easy : idle_handles_) curl::api().easy_cleanup(static_cast<CURL*>(easy));
  if (multi_ != nullptr) curl::api().multi_cleanup(static_cast<CURLM*>(multi_));
}

// libcurl is loaded with the first transfer: a lock whose pages and metadata all come from a
// fresh cache loads none of its libraries (a fifth of such a lock).
void* Transport::multi() {
  if (multi_ != nullptr) return multi_;
  multi_ = curl::api().multi_init();
  curl::api().multi_setopt(static_cast<CURLM*>(multi_), CURLMOPT_MAX_HOST_CONNECTIONS,
                           static_cast<long>(settings_.max_parallel));
  curl::api().multi_setopt(static_cast<CURLM*>(multi_), CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  return multi_;
}

void Transport::prepare(Job& job) {
  CURL* easy = nullptr;
  if (!idle_handles_.empty()) {
    easy = static_cast<CURL*>(idle_handles_.back());
    idle_handles_.pop_back();
    curl::api().easy_reset(easy);
  } else {
    easy = curl::api().easy_init();
  }
  job.easy = easy;
  job.body.clear();
  job.received = 0;
  job.too_large = false;
  static_cast<ResponseHeaders&>(job) = ResponseHeaders{};  // nothing left from an earlier attempt
  job.hasher = core::Sha256();
  curl::api().easy_setopt(easy, CURLOPT_URL, job.url.c_str());
  curl::api().easy_setopt(easy, CURLOPT_PRIVATE, &job);
  curl::api().easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
  curl::api().easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
  curl::api().easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl::api().easy_setopt(easy, CURLOPT_USERAGENT, settings_.user_agent.c_str());
  curl::api().easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
  curl::api().easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                          static_cast<long>(settings_.connect_timeout.count()));
  const long stall_s = std::max<long>(1, static_cast<long>(settings_.stall_timeout.count() / 1000));
  curl::api().easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT,
                          static_cast<long>(std::max<std::uint32_t>(1, settings_.low_speed_limit)));
  curl::api().easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, stall_s);
  // No attempt outlives the transfer's deadline, whatever the server does.
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(*job.deadline - Clock::now());
  curl::api().easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                          static_cast<long>(std::max<std::int64_t>(1, left.count())));
  if (!settings_.proxy.empty())
    curl::api().easy_setopt(easy, CURLOPT_PROXY, settings_.proxy.c_str());
  if (!settings_.ca_bundle.empty())
    curl::api().easy_setopt(easy, CURLOPT_CAINFO, settings_.ca_bundle.c_str());
  curl::api().easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_body);
  curl::api().easy_setopt(easy, CURLOPT_WRITEDATA, &job);
  curl::api().easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
  curl::api().easy_setopt(easy, CURLOPT_HEADERDATA, &job);
  if (job.headers != nullptr) curl::api().slist_free_all(job.headers);
  job.headers = nullptr;
  if (!job.accept.empty())
    job.headers = curl::api().slist_append(job.headers, ("Accept: " + job.accept).c_str());
  if (job.cached) {
    if (!job.cached->page.etag.empty()) {
      job.headers = curl::api().slist_append(job.headers,
                                             ("If-None-Match: " + job.cached->page.etag).c_str());
    }
    if (!job.cached->page.last_modified.empty()) {
      job.headers = curl::api().slist_append(
          job.headers, ("If-Modified-Since: " + job.cached->page.last_modified).c_str());
    }
  }
  if (job.headers != nullptr) curl::api().easy_setopt(easy, CURLOPT_HTTPHEADER, job.headers);
  if (job.kind == JobKind::head) curl::api().easy_setopt(easy, CURLOPT_NOBODY, 1L);
  if (job.kind == JobKind::range) prepare_range(easy, job);
  if (job.kind == JobKind::file) {
    job.drop_part();  // an earlier attempt's bytes
    job.out = cache::open_part(settings_.cache_dir,
                               std::to_string(getpid()) + "-" + std::to_string(++temp_counter_),
                               job.temp);
  }
}

// One call of run(): the jobs waiting to start (a retry waits out its delay there), how many are
// in flight, and how many finished.
struct Transport::Batch {
  Transport& transport;
  const std::vector<Job*>& jobs;
  Deadlines deadlines;
  std::deque<Job*> waiting;
  std::size_t active = 0;
  std::size_t done = 0;
  std::uint64_t bytes = 0;

  bool finished() const { return done >= jobs.size(); }
  void finish(Job& job, std::string error);
  void start_waiting();
  void collect_finished();
  void settle(Job& job, CURL* easy, CURLcode code);
  void wait_for_progress();
};

void Transport::Batch::finish(Job& job, std::string error) {
  job.finished = true;
  job.error = std::move(error);
  ++done;
  bytes += job.received;
  transport.bytes_received_ += job.received;
  transport.reporter_->advance(done, bytes);
}

// Starts the jobs whose wait is over, as many as the parallel limit allows; a job whose deadline
// passed while it was queued behind others fails without a transfer.
void Transport::Batch::start_waiting() {
  const auto now = Clock::now();
  const TransportSettings& settings = transport.settings_;
  for (std::size_t i = waiting.size(); i-- > 0 && active < settings.max_parallel;) {
    Job* job = waiting.front();
    waiting.pop_front();
    if (job->not_before > now) {
      waiting.push_back(job);
      continue;
    }
    if (!job->deadline) job->deadline = deadlines.of(*job, now);
    if (now >= *job->deadline) {
      finish(*job, deadlines.passed(*job));
      continue;
    }
    transport.prepare(*job);
    if (job->kind == JobKind::file && job->out == nullptr) {
      finish(*job, "cannot write to the cache directory `" +
                       cache::temp_dir(settings.cache_dir).string() + "`");
      continue;
    }
    curl::api().multi_add_handle(static_cast<CURLM*>(transport.multi()), job->easy);
    ++active;
    ++transport.transfers_;
  }
}

// Lets libcurl move every transfer on, and settles those that ended.
void Transport::Batch::collect_finished() {
  auto* multi = static_cast<CURLM*>(transport.multi());
  int running = 0;
  curl::api().multi_perform(multi, &running);
  int left = 0;
  while (CURLMsg* message = curl::api().multi_info_read(multi, &left)) {
    if (message->msg != CURLMSG_DONE) continue;
    CURL* easy = message->easy_handle;
    Job* job = nullptr;
    curl::api().easy_getinfo(easy, CURLINFO_PRIVATE, &job);
    const CURLcode code = message->data.result;
    curl::api().multi_remove_handle(multi, easy);
    transport.idle_handles_.push_back(easy);
    job->easy = nullptr;
    --active;
    settle(*job, easy, code);
  }
}

// A transfer that ended: done, queued again after its retry delay, or failed with the reason
// (and why no retry was left, when the deadline allowed none).
void Transport::Batch::settle(Job& job, CURL* easy, CURLcode code) {
  const TransportSettings& settings = transport.settings_;
  Outcome outcome = judge(job, easy, code, settings, deadlines);
  if (outcome.failure.empty()) {
    finish(job, job.kind == JobKind::file ? store_download(job, settings.cache_dir) : "");
    return;
  }
  job.drop_part();
  std::string late;  // a retry that the deadline does not leave time for
  if (outcome.again && job.attempts < settings.retries) {
    const auto delay =
        retry_delay(settings.backoff, job.attempts, job.retry_after, settings.retry_after_cap);
    if (Clock::now() + delay < *job.deadline) {
      ++job.attempts;
      job.not_before = Clock::now() + delay;
      transport.reporter_->note("retrying `" + job.url + "` (" + outcome.failure + "), attempt " +
                                std::to_string(job.attempts + 1) + " of " +
                                std::to_string(settings.retries + 1));
      waiting.push_back(&job);
      return;
    }
    late = "; a retry in " + seconds_text(delay) + " would pass " + deadlines.name(job);
    outcome.hint = deadlines.hint(job);
  }
  const int tries = job.attempts + 1;
  finish(job, outcome.failure + (tries > 1 ? " after " + std::to_string(tries) + " attempts" : "") +
                  late + (outcome.hint.empty() ? "" : "\nhint: " + outcome.hint));
}

void Transport::Batch::wait_for_progress() {
  if (active > 0) {
    curl::api().multi_poll(static_cast<CURLM*>(transport.multi()), nullptr, 0, 50, nullptr);
  } else if (!waiting.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void Transport::run(std::vector<Job*>& jobs, std::string_view what) {
  if (jobs.empty()) return;
  Batch batch{*this, jobs, Deadlines{settings_, Clock::now() + settings_.phase_deadline, what},
              std::deque<Job*>(jobs.begin(), jobs.end())};
  reporter_->start(what, jobs.size());
  while (!batch.finished()) {
    batch.start_waiting();
    batch.collect_finished();
    if (batch.finished()) break;
    batch.wait_for_progress();
  }
  reporter_->finish();
}

std::filesystem::path default_cache_dir() {
  if (const auto xdg = util::env("XDG_CACHE_HOME")) return fs::path(*xdg) / "bevenv";
  if (const auto home = util::env("HOME")) return fs::path(*home) / ".cache" / "bevenv";
  return fs::temp_directory_path() / "bevenv-cache";
}

}  // namespace bevenv::index
