#include "bevenv/core/text_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "bevenv/core/error.hpp"
#include "read_fd.hpp"

namespace bevenv::core {
namespace {

std::string mib_text(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& what,
                         std::string_view hint) {
  throw Error(ExitCode::bad_input, "`" + path.string() + "` " + what, std::string(hint));
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

void require_regular(const std::filesystem::path& path, const struct stat& info,
                     std::size_t max_bytes, std::string_view hint) {
  if (!S_ISREG(info.st_mode)) {
    refuse(path, "is " + std::string(kind_of(info.st_mode)) + ", not a regular file", hint);
  }
  if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
    refuse(path, "is larger than the " + mib_text(max_bytes) + " that bevenv reads", hint);
  }
}

// Control characters that text files hold: tab, line breaks, form feed, backspace, escape.
bool text_control(unsigned char c) {
  return c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '\b' || c == 0x1b;
}

// Bytes that are neither printable ASCII, text controls nor part of a valid UTF-8 sequence.
std::size_t odd_bytes(std::string_view sample) {
  std::size_t odd = 0;
  for (std::size_t i = 0; i < sample.size();) {
    const auto c = static_cast<unsigned char>(sample[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !text_control(c)) || c == 0x7f) ++odd;
      ++i;
      continue;
    }
    const std::size_t length = c >= 0xc2 && c <= 0xdf   ? 2
                               : c >= 0xe0 && c <= 0xef ? 3
                               : c >= 0xf0 && c <= 0xf4 ? 4
                                                        : 0;
    std::size_t valid = length > 0 && i + length <= sample.size() ? 1 : 0;
    for (std::size_t k = 1; valid != 0 && k < length; ++k) {
      valid = (static_cast<unsigned char>(sample[i + k]) & 0xc0) == 0x80 ? 1 : 0;
    }
    if (valid != 0) {
      i += length;
    } else {
      ++odd;
      ++i;
    }
  }
  return odd;
}

}  // namespace

std::string read_regular_file(const std::filesystem::path& path, std::string_view hint,
                              std::size_t max_bytes) {
  struct stat info {};
  // stat first: a FIFO, a device or a directory is refused without being opened.
  if (::stat(path.c_str(), &info) != 0) {
    refuse(path, "cannot be read: " + std::string(std::strerror(errno)), hint);
  }
  require_regular(path, info, max_bytes, hint);
  // O_NONBLOCK: should the path have become a FIFO since, opening it does not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) refuse(path, "cannot be read: " + std::string(std::strerror(errno)), hint);
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    refuse(path, "is not a regular file", hint);
  }
  bool failed = false;
  std::string text =
      detail::read_fd(fd, static_cast<std::size_t>(info.st_size), max_bytes, &failed);
  ::close(fd);
  if (failed) refuse(path, "cannot be read", hint);
  if (text.size() > max_bytes) {
    refuse(path, "is larger than the " + mib_text(max_bytes) + " that bevenv reads", hint);
  }
  return text;
}

std::string read_stream(std::istream& in, std::string_view name, std::string_view hint,
                        std::size_t max_bytes) {
  std::string text;
  char buffer[1 << 16];
  while (in && text.size() <= max_bytes) {
    in.read(buffer, sizeof buffer);
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  if (text.size() > max_bytes) {
    throw Error(
        ExitCode::bad_input,
        std::string(name) + " holds more than the " + mib_text(max_bytes) + " that bevenv reads",
        std::string(hint));
  }
  return text;
}

std::optional<std::size_t> binary_offset(std::string_view text) {
  // Samples, so that one odd stretch in a long log is judged on its own; the last sample
  // reaches back a full length so that a short tail is not judged on a few bytes. A NUL byte
  // counts as odd but is no verdict alone: torch's DataLoader ends its bus-error message with one.
  constexpr std::size_t kSample = 4096;
  for (std::size_t start = 0; start < text.size(); start += kSample) {
    const std::size_t from = std::min(start, text.size() > kSample ? text.size() - kSample : 0);
    const std::string_view sample = text.substr(from, kSample);
    // More than 30% odd bytes: no log or TOML file looks like that.
    if (odd_bytes(sample) * 10 > sample.size() * 3) {
      const auto nul = sample.find('\0');
      return from + (nul == std::string_view::npos ? 0 : nul);
    }
  }
  return std::nullopt;
}

namespace detail {

constexpr std::size_t kReadBlock = std::size_t{1} << 16;  // the least a text grows by

std::string read_fd(int fd, std::size_t expected, std::size_t limit, bool* failed) {
  std::string text(std::min(expected, limit) + 1, '\0');
  std::size_t filled = 0;
  while (filled <= limit) {
    if (filled == text.size()) text.resize(text.size() + std::max(text.size(), kReadBlock));
    const ssize_t n = ::read(fd, text.data() + filled, text.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *failed = true;
      break;
    }
    if (n == 0) break;
    filled += static_cast<std::size_t>(n);
  }
  text.resize(filled);
  return text;
}

}  // namespace detail

}  // namespace bevenv::core
