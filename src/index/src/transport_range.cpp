// Transport::get_ranges and Transport::stream: parts of remote files (a wheel's central
// directory and METADATA, an sdist's first entries), never cached here: the caller caches what
// it extracts.
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "bevenv/index/transport.hpp"
#include "transport_job.hpp"

namespace bevenv::index {
namespace {

struct ContentRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::uint64_t size = 0;
};

// `bytes FIRST-LAST/SIZE`; a `*` size (unknown) is refused: the zip reader needs the size.
std::optional<ContentRange> parse_content_range(const std::string& value) {
  if (!value.starts_with("bytes ")) return std::nullopt;
  const char* p = value.c_str() + 6;
  char* end = nullptr;
  ContentRange out;
  out.first = std::strtoull(p, &end, 10);
  if (end == p || *end != '-') return std::nullopt;
  p = end + 1;
  out.last = std::strtoull(p, &end, 10);
  if (end == p || *end != '/') return std::nullopt;
  p = end + 1;
  out.size = std::strtoull(p, &end, 10);
  if (end == p || *end != '\0' || out.last < out.first || out.last >= out.size) return std::nullopt;
  return out;
}

core::Expected<RangeReply, std::string> reply_of(Transport::Job& job) {
  RangeReply reply;
  if (job.stopped) {
    reply.ignored = true;
    return reply;
  }
  if (job.status != 206) {
    return core::unexpected("`" + job.url + "`: HTTP " + std::to_string(job.status) +
                            " to a range request");
  }
  const auto range = parse_content_range(job.content_range);
  if (!range || range->last - range->first + 1 != job.body.size()) {
    return core::unexpected("`" + job.url + "`: the answer's Content-Range `" + job.content_range +
                            "` does not match its body");
  }
  reply.offset = range->first;
  reply.file_size = range->size;
  reply.body = std::move(job.body);
  return reply;
}

// The answers of a range or stream request that makes no transfer.
std::string no_range_request(const std::string& url) {
  return "`" + url + "`: no range request (offline or empty)";
}

std::string no_stream(const std::string& url) { return "`" + url + "`: no stream (offline)"; }

}  // namespace

void prepare_range(CURL* easy, Transport::Job& job) {
  job.stopped = false;
  job.content_range.clear();
  curl::api().easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, static_cast<char*>(nullptr));
  curl::api().easy_setopt(easy, CURLOPT_RANGE, job.range.c_str());
}

std::vector<core::Expected<RangeReply, std::string>> Transport::get_ranges(
    const std::vector<RangeRequest>& requests, std::string_view what) {
  const auto make = [&](const RangeRequest& request,
                        core::Expected<RangeReply, std::string>& answer) -> std::unique_ptr<Job> {
    if (request.length == 0) {
      answer = core::unexpected(no_range_request(request.url));
      return nullptr;
    }
    auto job = new_job(JobKind::range, request.url);
    // A range answer lives in memory like a page (a central directory of thousands of files).
    job->max_body = settings_.max_page_size;
    job->range = request.suffix ? "-" + std::to_string(request.length)
                                : std::to_string(request.first) + "-" +
                                      std::to_string(request.first + request.length - 1);
    return job;
  };
  return answer_each<RangeReply>(requests, what, make, no_range_request,
                                 [](Job& job) { return reply_of(job); });
}

std::vector<core::Expected<StreamReply, std::string>> Transport::stream(
    const std::vector<StreamRequest>& requests, std::string_view what) {
  // A stream has no cache to answer from: every request is a transfer.
  const auto make = [](const StreamRequest& request,
                       core::Expected<StreamReply, std::string>&) -> std::unique_ptr<Job> {
    auto job = new_job(JobKind::stream, request.url);
    job->sink = request.sink;
    return job;
  };
  return answer_each<StreamReply>(
      requests, what, make, no_stream, [](Job& job) -> core::Expected<StreamReply, std::string> {
        if (job.status != 200)
          return core::unexpected("`" + job.url + "`: HTTP " + std::to_string(job.status));
        return StreamReply{job.stopped, job.received};
      });
}

}  // namespace bevenv::index
