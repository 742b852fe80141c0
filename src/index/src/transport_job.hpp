#pragma once
// One transfer of Transport (private to the index module).
#include <curl/curl.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "bevenv/core/sha256.hpp"
#include "bevenv/index/transport.hpp"
#include "cache.hpp"

namespace bevenv::index {

enum class JobKind { page, file, head, range, stream };

struct Transport::Job {
  JobKind kind = JobKind::page;
  std::string url;
  std::string accept;
  std::optional<cache::CachedPage> cached;  // pages: sent as validators
  std::string expected_sha256;              // files
  std::string filename;
  std::filesystem::path temp;
  std::FILE* out = nullptr;
  core::Sha256 hasher;
  std::uint64_t received = 0;
  long status = 0;
  std::string body;
  std::string etag, last_modified, content_type;
  std::int64_t max_age = 0;
  std::optional<std::uint64_t> content_length;
  int attempts = 0;
  std::chrono::steady_clock::time_point not_before{};
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  bool finished = false;
  std::string error;  // empty when it succeeded
  // Ranges and streams (transport_range.cpp): the Range header's value, the Content-Range
  // answered, a stream's sink, and whether the transfer was stopped on purpose (a range
  // answered with the whole file, or a sink that has what it needs).
  std::string range;
  std::string content_range;
  std::function<bool(std::string_view, int)> sink;
  bool stopped = false;

  Job() = default;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  ~Job() {
    if (headers != nullptr) curl_slist_free_all(headers);
    if (out != nullptr) std::fclose(out);
    if (!temp.empty()) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
    }
  }
};

// Range jobs: sets CURLOPT_RANGE and asks for the bytes as stored (a compressed encoding
// would make the offsets meaningless).
void prepare_range(CURL* easy, Transport::Job& job);

}  // namespace bevenv::index
