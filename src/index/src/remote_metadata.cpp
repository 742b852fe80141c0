#include "remote_metadata.hpp"

#include "remote_zip.hpp"

namespace bevenv::index::remote {
namespace {

// A sound wheel needs at most four: tail, ZIP64 record, central directory, member. More means
// a reader that keeps asking: stop rather than loop.
constexpr int kMaxRounds = 6;

struct Pending {
  std::size_t index = 0;
  RangeRequest request;
  std::vector<zip::Window> windows;
  std::uint64_t file_size = 0;
};

// Takes one answer in; true when the read goes on with `pending.request`.
bool advance(Pending& pending, core::Expected<RangeReply, std::string>& reply,
             const WheelRead& read, WheelMetadata& out) {
  ++out.requests;
  if (!reply) {
    out.error = reply.error();
    return false;
  }
  if (reply->ignored) {
    out.ranges_ignored = true;
    return false;
  }
  out.bytes += reply->body.size();
  if (!pending.windows.empty() && reply->file_size != pending.file_size) {
    out.error = "`" + read.url + "` changed size between two range requests";
    return false;
  }
  pending.file_size = reply->file_size;
  pending.windows.push_back({reply->offset, std::move(reply->body)});
  auto step = zip::read_metadata(pending.windows, pending.file_size, read.project);
  if (!step) {
    out.error = "`" + read.url + "`: " + step.error();
    return false;
  }
  if (auto* text = std::get_if<std::string>(&*step)) {
    out.text = std::move(*text);
    return false;
  }
  const zip::ByteRange need = std::get<zip::ByteRange>(*step);
  pending.request = {read.url, need.begin, need.end - need.begin, false};
  return true;
}

}  // namespace

std::vector<WheelMetadata> read_wheel_metadata(Transport& transport,
                                               const std::vector<WheelRead>& reads) {
  std::vector<WheelMetadata> out(reads.size());
  std::vector<Pending> pending;
  for (std::size_t i = 0; i < reads.size(); ++i)
    pending.push_back({i, {reads[i].url, 0, zip::kTailSize, true}, {}, 0});
  for (int round = 0; round < kMaxRounds && !pending.empty(); ++round) {
    std::vector<RangeRequest> requests;
    for (const Pending& p : pending) requests.push_back(p.request);
    auto replies = transport.get_ranges(requests, "metadata (byte ranges)");
    std::vector<Pending> next;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      Pending& p = pending[k];
      if (advance(p, replies[k], reads[p.index], out[p.index])) next.push_back(std::move(p));
    }
    pending = std::move(next);
  }
  for (const Pending& p : pending) {
    out[p.index].error = "`" + reads[p.index].url + "`: the zip reader asked for more than " +
                         std::to_string(kMaxRounds) + " ranges";
  }
  return out;
}

}  // namespace bevenv::index::remote
