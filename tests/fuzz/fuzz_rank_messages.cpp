// Fuzzes the `bevenv-probe --rank` rendezvous as a hostile peer would: the input is the byte
// stream a connection delivers to rank 0 (or to a follower). It passes through the real framing
// (probes/tool/rendezvous.cpp over a socketpair), each frame is read as a hello, a report and a
// go message (rank_messages.cpp), and what was accepted goes into the aggregate rank 0 prints
// (rank_aggregate.cpp). Nothing a peer sends makes any of it throw.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "rank_aggregate.hpp"
#include "rank_messages.hpp"
#include "rendezvous.hpp"

using bevenv::fuzz::require;
namespace pt = bevenv::probe_tool;

namespace {

constexpr int kWorld = 4;
// What fits in a socketpair's buffer without a reader: the input is written whole, then read.
constexpr std::size_t kMaxInput = 64 * 1024;

std::vector<std::string> frames_of(const std::uint8_t* data, std::size_t size) {
  int fds[2];
  require(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0, "a socketpair");
  const int buffer = 4 * kMaxInput;
  ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
  ::setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  ::fcntl(fds[1], F_SETFL, ::fcntl(fds[1], F_GETFL) | O_NONBLOCK);
  std::size_t sent = 0;
  while (sent < size) {
    const ssize_t n = ::send(fds[0], data + sent, size - sent, MSG_NOSIGNAL);  // NOLINT
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  ::close(fds[0]);
  pt::Socket socket(fds[1]);
  (void)socket.read_available();
  std::vector<std::string> frames;
  while (auto message = socket.next_message()) frames.push_back(std::move(*message));
  return frames;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInput) return 0;
  try {
    std::vector<pt::RankRecord> records(kWorld);
    for (int rank = 0; rank < kWorld; ++rank) {
      records[static_cast<std::size_t>(rank)].rank = rank;
      records[static_cast<std::size_t>(rank)].state = rank == 0 ? "reported" : "missing";
    }
    pt::AggregateContext context;
    context.world_size = kWorld;
    context.min_busbw_gbps = 10.0;
    int next = 1;
    for (const std::string& frame : frames_of(data, size)) {
      const pt::json message = pt::parse_message(frame);
      require(message.is_null() || message.is_object(), "a message that is not an object");
      const pt::HelloVerdict hello = pt::read_hello(message, kWorld, "10.0.0.9");
      require(hello.rank.has_value() != !hello.problem.empty(), "a hello both taken and refused");
      if (hello.rank) {
        require(*hello.rank > 0 && *hello.rank < kWorld, "a hello for a rank out of range");
        auto& record = records[static_cast<std::size_t>(*hello.rank)];
        record.state = "connected";
        record.hello = message;
      } else {
        context.extra_problems.push_back(hello.problem);
      }
      if (const auto report = pt::read_report(message)) {
        require(report->is_object(), "a report that is not an object");
        auto& record = records[static_cast<std::size_t>(next)];
        record.state = "reported";
        record.report = *report;
        next = next % (kWorld - 1) + 1;
      }
      (void)pt::read_go(message);
    }
    records[2].state = records[2].state == "missing" ? "lost" : records[2].state;
    const pt::json aggregate = pt::aggregate_cluster(context, records);
    require(aggregate.is_object(), "an aggregate that is not an object");
    (void)aggregate.dump(2);  // as rank_run.cpp prints it: throws on bytes that are not UTF-8
  } catch (const std::exception& error) {
    std::fprintf(stderr, "exception: %s\n", error.what());
    require(false, "an exception escaped the rendezvous readers");
  }
  return 0;
}
