#include "bevenv/index/transport.hpp"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <thread>

#include "bevenv/core/sha256.hpp"
#include "cache.hpp"
#include "transport_job.hpp"

namespace bevenv::index {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

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

std::string describe(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return "timed out (no data)";
    case CURLE_PARTIAL_FILE:
      return "the connection closed before the whole body arrived";
    case CURLE_GOT_NOTHING:
      return "the server closed the connection without answering";
    case CURLE_COULDNT_CONNECT:
      return "cannot connect";
    default:
      return curl_easy_strerror(code);
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
  job->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* job = static_cast<Transport::Job*>(user);
  const std::size_t n = size * count;
  const std::string_view line(data, n);
  if (line.starts_with("HTTP/")) {
    // A new response (after a redirect or `100 Continue`): forget the previous one's headers.
    const auto space = line.find(' ');
    job->status = space == std::string_view::npos
                      ? 0
                      : std::atol(std::string(line.substr(space + 1, 3)).c_str());
    job->etag.clear();
    job->last_modified.clear();
    job->content_type.clear();
    job->max_age = 0;
    job->content_length.reset();
    job->content_range.clear();
    return n;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  const std::string key = lower(trim(line.substr(0, colon)));
  const std::string value(trim(line.substr(colon + 1)));
  if (key == "etag") job->etag = value;
  if (key == "last-modified") job->last_modified = value;
  if (key == "content-type") job->content_type = value;
  if (key == "content-range") job->content_range = value;
  if (key == "content-length") job->content_length = std::strtoull(value.c_str(), nullptr, 10);
  if (key == "cache-control") {
    const std::string l = lower(value);
    const auto at = l.find("max-age=");
    if (l.find("no-cache") == std::string::npos && l.find("no-store") == std::string::npos &&
        at != std::string::npos) {
      job->max_age = std::atoll(l.c_str() + at + 8);
    }
  }
  return n;
}

}  // namespace

Transport::Transport(TransportSettings settings, Reporter* reporter)
    : settings_(std::move(settings)), reporter_(reporter != nullptr ? reporter : &silent_) {
  static CurlGlobal global;
  multi_ = curl_multi_init();
  curl_multi_setopt(static_cast<CURLM*>(multi_), CURLMOPT_MAX_HOST_CONNECTIONS,
                    static_cast<long>(settings_.max_parallel));
  curl_multi_setopt(static_cast<CURLM*>(multi_), CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
}

Transport::~Transport() {
  for (void* easy : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(easy));
  curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

void Transport::prepare(Job& job) {
  CURL* easy = nullptr;
  if (!idle_handles_.empty()) {
    easy = static_cast<CURL*>(idle_handles_.back());
    idle_handles_.pop_back();
    curl_easy_reset(easy);
  } else {
    easy = curl_easy_init();
  }
  job.easy = easy;
  job.body.clear();
  job.received = 0;
  job.status = 0;
  job.hasher = core::Sha256();
  curl_easy_setopt(easy, CURLOPT_URL, job.url.c_str());
  curl_easy_setopt(easy, CURLOPT_PRIVATE, &job);
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, settings_.user_agent.c_str());
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(settings_.connect_timeout.count()));
  const long stall_s = std::max<long>(1, static_cast<long>(settings_.stall_timeout.count() / 1000));
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, stall_s);
  if (!settings_.proxy.empty()) curl_easy_setopt(easy, CURLOPT_PROXY, settings_.proxy.c_str());
  if (!settings_.ca_bundle.empty())
    curl_easy_setopt(easy, CURLOPT_CAINFO, settings_.ca_bundle.c_str());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &job);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &job);
  if (job.headers != nullptr) curl_slist_free_all(job.headers);
  job.headers = nullptr;
  if (!job.accept.empty())
    job.headers = curl_slist_append(job.headers, ("Accept: " + job.accept).c_str());
  if (job.cached) {
    if (!job.cached->page.etag.empty()) {
      job.headers =
          curl_slist_append(job.headers, ("If-None-Match: " + job.cached->page.etag).c_str());
    }
    if (!job.cached->page.last_modified.empty()) {
      job.headers = curl_slist_append(
          job.headers, ("If-Modified-Since: " + job.cached->page.last_modified).c_str());
    }
  }
  if (job.headers != nullptr) curl_easy_setopt(easy, CURLOPT_HTTPHEADER, job.headers);
  if (job.kind == JobKind::head) curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  if (job.kind == JobKind::range) prepare_range(easy, job);
  if (job.kind == JobKind::file) {
    const fs::path dir = cache::temp_dir(settings_.cache_dir);
    std::error_code ignored;
    fs::create_directories(dir, ignored);
    job.temp = dir / (std::to_string(getpid()) + "-" + std::to_string(++temp_counter_) + ".part");
    job.out = std::fopen(job.temp.c_str(), "wb");
  }
}

void Transport::run(std::vector<Job*>& jobs, std::string_view what) {
  if (jobs.empty()) return;
  auto* multi = static_cast<CURLM*>(multi_);
  std::deque<Job*> waiting(jobs.begin(), jobs.end());
  std::size_t active = 0;
  std::size_t done = 0;
  std::uint64_t bytes = 0;
  reporter_->start(what, jobs.size());

  auto finish = [&](Job& job, std::string error) {
    job.finished = true;
    job.error = std::move(error);
    ++done;
    bytes += job.received;
    bytes_received_ += job.received;
    reporter_->advance(done, bytes);
  };

  while (done < jobs.size()) {
    const auto now = Clock::now();
    for (std::size_t i = waiting.size(); i-- > 0 && active < settings_.max_parallel;) {
      Job* job = waiting.front();
      waiting.pop_front();
      if (job->not_before > now) {
        waiting.push_back(job);
        continue;
      }
      prepare(*job);
      if (job->kind == JobKind::file && job->out == nullptr) {
        finish(*job,
               "cannot write to the cache directory `" + job->temp.parent_path().string() + "`");
        continue;
      }
      curl_multi_add_handle(multi, job->easy);
      ++active;
      ++transfers_;
    }
    int running = 0;
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      CURL* easy = message->easy_handle;
      Job* job = nullptr;
      curl_easy_getinfo(easy, CURLINFO_PRIVATE, &job);
      const CURLcode code = message->data.result;
      curl_multi_remove_handle(multi, easy);
      idle_handles_.push_back(easy);
      job->easy = nullptr;
      --active;
      if (job->out != nullptr) {
        std::fclose(job->out);
        job->out = nullptr;
      }
      std::string failure;
      bool again = false;
      if (code != CURLE_OK && !job->stopped) {
        failure = describe(code);
        again = retryable(code);
      } else if (job->status >= 500 || job->status == 429 || job->status == 408) {
        failure = "HTTP " + std::to_string(job->status);
        again = true;
      } else if (job->status >= 400) {
        failure = "HTTP " + std::to_string(job->status);
      } else if (job->kind == JobKind::file && job->content_length &&
                 *job->content_length != job->received) {
        failure = "the body was cut short";
        again = true;
      }
      if (failure.empty()) {
        finish(*job, {});
        continue;
      }
      if (!job->temp.empty()) {
        std::error_code ignored;
        fs::remove(job->temp, ignored);
      }
      if (again && job->attempts < settings_.retries) {
        const auto delay = settings_.backoff * (1 << job->attempts);
        ++job->attempts;
        job->not_before = Clock::now() + delay;
        reporter_->note("retrying `" + job->url + "` (" + failure + "), attempt " +
                        std::to_string(job->attempts + 1) + " of " +
                        std::to_string(settings_.retries + 1));
        waiting.push_back(job);
        continue;
      }
      const int tries = job->attempts + 1;
      finish(*job, failure + (tries > 1 ? " after " + std::to_string(tries) + " attempts" : ""));
    }
    if (done >= jobs.size()) break;
    if (active > 0) {
      curl_multi_poll(multi, nullptr, 0, 50, nullptr);
    } else if (!waiting.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  reporter_->finish();
}

std::filesystem::path default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return fs::path(xdg) / "bevenv";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".cache" / "bevenv";
  }
  return fs::temp_directory_path() / "bevenv-cache";
}

}  // namespace bevenv::index
