#pragma once
// A small TCP rendezvous for `bevenv-probe --rank`: rank 0 listens, the others connect, and
// length-prefixed JSON messages travel both ways. Every wait is a poll() with a deadline, so an
// absent peer costs a bounded time and is reported, never waited on forever.
#include <chrono>
#include <optional>
#include <string>

namespace bevenv::probe_tool {

using RendezvousClock = std::chrono::steady_clock;
using Deadline = RendezvousClock::time_point;

// Milliseconds left until `deadline` (0 when it has passed), for poll().
int millis_until(Deadline deadline);

class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket&& other) noexcept;
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  int fd() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  void close();

  // Sends one framed message; false (with error()) when the peer is gone or time ran out.
  bool send_message(const std::string& payload, Deadline deadline);
  // Reads whatever is available now without blocking; false when the peer closed or failed.
  bool read_available();
  // A complete message from what has been read, if one has arrived.
  std::optional<std::string> next_message();
  // Waits for one message until the deadline; nullopt on close, error or timeout
  // (timed_out() tells which).
  std::optional<std::string> receive_message(Deadline deadline);

  const std::string& error() const { return error_; }
  bool timed_out() const { return timed_out_; }
  // The peer's address as text ("10.0.0.2"), for reports.
  std::string peer_address() const;

 private:
  int fd_ = -1;
  std::string buffer_;
  std::string error_;
  bool timed_out_ = false;
  bool frame_too_large_ = false;
};

// Listens on every address (IPv6 dual stack where the host has it, else IPv4) at `port`.
Socket listen_on(int port, std::string& error);
// Accepts one pending connection without blocking; a closed Socket when none is waiting.
Socket accept_pending(const Socket& listener);
// Connects to host:port, retrying (the listener may not be up yet) until the deadline.
Socket connect_until(const std::string& host, int port, Deadline deadline, std::string& error);

}  // namespace bevenv::probe_tool
