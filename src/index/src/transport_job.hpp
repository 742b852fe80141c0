#pragma once
// One transfer of Transport (private to the index module).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "bevenv/core/sha256.hpp"
#include "bevenv/index/transport.hpp"
#include "cache.hpp"
#include "curl_library.hpp"
#include "http_headers.hpp"

namespace bevenv::index {

enum class JobKind { page, file, head, range, stream };

// The response's headers are the Job's own fields (status, etag...), reset by each status line.
struct Transport::Job : ResponseHeaders {
  JobKind kind = JobKind::page;
  std::string url;
  std::string accept;
  std::optional<cache::CachedPage> cached;  // pages: sent as validators
  std::string expected_sha256;              // files
  std::string filename;
  std::filesystem::path temp;
  std::FILE* out = nullptr;  // holds an flock on `temp` while it is written
  core::Sha256 hasher;
  std::uint64_t received = 0;
  std::string body;
  std::uint64_t max_body = 0;  // pages: the most bytes kept in memory
  bool metadata_file = false;  // pages: a PEP 658 file (its own size limit)
  bool too_large = false;      // the body passed `max_body`: refused, not retried
  int attempts = 0;
  std::chrono::steady_clock::time_point not_before{};
  // Set when the first attempt starts: no attempt, retry or wait goes past it.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  bool finished = false;
  std::string error;  // empty when it succeeded
  // Files, once finished: the bytes' sha256, and where they were stored when it matched.
  std::string actual_sha256;
  std::filesystem::path stored;
  // Ranges and streams (transport_range.cpp): the Range header's value (the Content-Range
  // answered is in ResponseHeaders), a stream's sink, and whether the transfer was stopped on
  // purpose (a range answered with the whole file, or a sink that has what it needs).
  std::string range;
  std::function<bool(std::string_view, int)> sink;
  bool stopped = false;

  Job() = default;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  ~Job() {
    if (headers != nullptr) curl::api().slist_free_all(headers);
    drop_part();
  }

  // Removes the partial file of an attempt, then lets go of its lock: in this order, no other
  // process ever sees it unlocked and takes it for a dead one's.
  void drop_part() {
    if (!temp.empty()) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      temp.clear();
    }
    if (out != nullptr) std::fclose(out);
    out = nullptr;
  }
};

// A transfer of `kind` from `url`; the caller sets what its kind needs besides.
inline std::unique_ptr<Transport::Job> new_job(JobKind kind, std::string url) {
  auto job = std::make_unique<Transport::Job>();
  job->kind = kind;
  job->url = std::move(url);
  return job;
}

template <class Reply, class Request, class Make, class Finish>
std::vector<core::Expected<Reply, std::string>> Transport::answer_each(
    const std::vector<Request>& requests, std::string_view what, Make make,
    std::string (*offline)(const std::string& url), Finish finish) {
  std::vector<core::Expected<Reply, std::string>> out(requests.size(),
                                                      core::unexpected(std::string()));
  std::vector<std::unique_ptr<Job>> jobs(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    jobs[i] = make(requests[i], out[i]);
    if (jobs[i] != nullptr && settings_.offline) {
      jobs[i].reset();
      out[i] = core::unexpected(offline(requests[i].url));
    }
  }
  run_made(jobs, what);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    Job* job = jobs[i].get();
    if (job == nullptr) continue;
    if (!job->error.empty()) {
      out[i] = core::unexpected("`" + job->url + "`: " + job->error);
      continue;
    }
    out[i] = finish(*job);
  }
  return out;
}

// A finished download: hashed, and renamed into the cache while its lock is held when the hash
// matches (or none was published). An error text for a file that could not be stored; a
// mismatch leaves `stored` empty for the caller to report.
std::string store_download(Transport::Job& job, const std::filesystem::path& cache_dir);
// Range jobs: sets CURLOPT_RANGE and asks for the bytes as stored (a compressed encoding
// would make the offsets meaningless).
void prepare_range(CURL* easy, Transport::Job& job);

}  // namespace bevenv::index
