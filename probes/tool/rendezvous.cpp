#include "rendezvous.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <thread>

namespace bevenv::probe_tool {
namespace {

constexpr std::size_t kHeaderBytes = 4;
// A rank report with a Python environment is tens of KiB; anything this large is not ours.
constexpr std::size_t kMaxMessageBytes = 64U * 1024U * 1024U;
constexpr auto kConnectAttempt = std::chrono::seconds(2);
constexpr auto kRetryPause = std::chrono::milliseconds(200);

bool set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

void set_nodelay(int fd) {
  const int on = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

std::string header_for(std::size_t size) {
  std::string header(kHeaderBytes, '\0');
  for (std::size_t i = 0; i < kHeaderBytes; ++i) {
    header[kHeaderBytes - 1 - i] = static_cast<char>((size >> (8 * i)) & 0xFFU);
  }
  return header;
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// One non-blocking connect to one address, bounded by `deadline`.
int try_connect(const addrinfo& address, Deadline deadline, std::string& error) {
  const int fd =
      ::socket(address.ai_family, address.ai_socktype | SOCK_CLOEXEC, address.ai_protocol);
  if (fd < 0) {
    error = errno_text("socket");
    return -1;
  }
  if (!set_nonblocking(fd)) {
    error = errno_text("fcntl");
    ::close(fd);
    return -1;
  }
  if (::connect(fd, address.ai_addr, address.ai_addrlen) == 0) return fd;
  if (errno != EINPROGRESS) {
    error = errno_text("connect");
    ::close(fd);
    return -1;
  }
  const Deadline attempt_end = std::min(deadline, RendezvousClock::now() + kConnectAttempt);
  pollfd polled{fd, POLLOUT, 0};
  int ready = 0;
  do {
    ready = ::poll(&polled, 1, millis_until(attempt_end));
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) {
    error = "connect: no answer";
    ::close(fd);
    return -1;
  }
  int socket_error = 0;
  socklen_t length = sizeof socket_error;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &socket_error, &length);
  if (socket_error != 0) {
    error = std::string("connect: ") + std::strerror(socket_error);
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int millis_until(Deadline deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - RendezvousClock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1 << 30));
}

Socket::Socket(Socket&& other) noexcept
    : fd_(other.fd_), buffer_(std::move(other.buffer_)), error_(std::move(other.error_)) {
  other.fd_ = -1;
}

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    buffer_ = std::move(other.buffer_);
    error_ = std::move(other.error_);
    other.fd_ = -1;
  }
  return *this;
}

Socket::~Socket() { close(); }

void Socket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Socket::send_message(const std::string& payload, Deadline deadline) {
  const std::string data = header_for(payload.size()) + payload;
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t wrote = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (wrote > 0) {
      sent += static_cast<std::size_t>(wrote);
      continue;
    }
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd polled{fd_, POLLOUT, 0};
      const int wait = millis_until(deadline);
      if (wait == 0 || ::poll(&polled, 1, wait) == 0) {
        timed_out_ = true;
        error_ = "sending timed out";
        return false;
      }
      continue;
    }
    error_ = errno_text("send");
    return false;
  }
  return true;
}

bool Socket::read_available() {
  std::array<char, 65536> chunk{};
  for (;;) {
    const ssize_t got = ::recv(fd_, chunk.data(), chunk.size(), 0);
    if (got > 0) {
      buffer_.append(chunk.data(), static_cast<std::size_t>(got));
      continue;
    }
    if (got == 0) {
      error_ = "connection closed by peer";
      return false;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    error_ = errno_text("recv");
    return false;
  }
}

std::optional<std::string> Socket::next_message() {
  if (buffer_.size() < kHeaderBytes) return std::nullopt;
  std::size_t size = 0;
  for (std::size_t i = 0; i < kHeaderBytes; ++i) {
    size = (size << 8) | static_cast<unsigned char>(buffer_[i]);
  }
  if (size > kMaxMessageBytes) {
    frame_too_large_ = true;
    return std::nullopt;
  }
  if (buffer_.size() < kHeaderBytes + size) return std::nullopt;
  std::string message = buffer_.substr(kHeaderBytes, size);
  buffer_.erase(0, kHeaderBytes + size);
  return message;
}

std::optional<std::string> Socket::receive_message(Deadline deadline) {
  timed_out_ = false;
  for (;;) {
    if (auto message = next_message()) return message;
    if (frame_too_large_) {
      error_ = "a message larger than the protocol allows arrived (not a bevenv-probe peer?)";
      return std::nullopt;
    }
    pollfd polled{fd_, POLLIN, 0};
    const int wait = millis_until(deadline);
    const int ready = wait == 0 ? 0 : ::poll(&polled, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      timed_out_ = true;
      error_ = "timed out";
      return std::nullopt;
    }
    if (!read_available()) {
      if (auto message = next_message()) return message;
      return std::nullopt;
    }
  }
}

std::string Socket::peer_address() const {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "";
  std::array<char, NI_MAXHOST> host{};
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&address), length, host.data(), host.size(),
                    nullptr, 0, NI_NUMERICHOST) != 0) {
    return "";
  }
  std::string text = host.data();
  if (text.rfind("::ffff:", 0) == 0) text.erase(0, 7);  // IPv4 seen through a dual-stack socket
  return text;
}

Socket listen_on(int port, std::string& error) {
  const int on = 1;
  const int off = 0;
  int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_addr = in6addr_any;
    address.sin6_port = htons(static_cast<std::uint16_t>(port));
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      const bool in_use = errno == EADDRINUSE;
      error = errno_text("bind");
      ::close(fd);
      fd = -1;
      if (in_use) return Socket();  // IPv4 on the same port would fail the same way
    }
  }
  if (fd < 0) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      error = errno_text("socket");
      return Socket();
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      error = errno_text("bind");
      ::close(fd);
      return Socket();
    }
  }
  if (::listen(fd, 1024) != 0 || !set_nonblocking(fd)) {
    error = errno_text("listen");
    ::close(fd);
    return Socket();
  }
  return Socket(fd);
}

Socket accept_pending(const Socket& listener) {
  for (;;) {
    const int fd = ::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      set_nodelay(fd);
      return Socket(fd);
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    return Socket();
  }
}

Socket connect_until(const std::string& host, int port, Deadline deadline, std::string& error) {
  const std::string service = std::to_string(port);
  do {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
    if (rc != 0) {
      error = std::string("cannot resolve: ") + ::gai_strerror(rc);
    } else {
      for (const addrinfo* address = found; address != nullptr; address = address->ai_next) {
        const int fd = try_connect(*address, deadline, error);
        if (fd >= 0) {
          ::freeaddrinfo(found);
          set_nodelay(fd);
          return Socket(fd);
        }
      }
      ::freeaddrinfo(found);
    }
    const auto pause = std::min<RendezvousClock::duration>(
        kRetryPause, std::max<RendezvousClock::duration>(deadline - RendezvousClock::now(),
                                                         RendezvousClock::duration::zero()));
    std::this_thread::sleep_for(pause);
  } while (RendezvousClock::now() < deadline);
  return Socket();
}

}  // namespace bevenv::probe_tool
