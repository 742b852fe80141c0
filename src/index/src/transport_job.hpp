#pragma once
// One transfer of Transport (private to the index module).
#include <curl/curl.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "bevenv/core/sha256.hpp"
#include "bevenv/index/transport.hpp"
#include "cache.hpp"

namespace bevenv::index {

enum class JobKind { page, file, head };

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

}  // namespace bevenv::index
