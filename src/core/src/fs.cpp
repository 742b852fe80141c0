#include "bevenv/core/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "bevenv/core/error.hpp"
#include "bevenv/core/sha256.hpp"
#include "bevenv/util/text.hpp"
#include "read_fd.hpp"

namespace bevenv::core {
namespace {

std::string temporary_name_beside(const std::filesystem::path& path) {
  std::random_device entropy;
  std::ostringstream name;
  name << "." << path.filename().string() << ".tmp-" << ::getpid() << "-" << std::hex << entropy();
  return (path.parent_path() / name.str()).string();
}

[[noreturn]] void fail_write(const std::filesystem::path& path, const std::string& what,
                             int error) {
  throw Error(ExitCode::failure,
              "cannot write `" + path.string() + "`: " + what + ": " + std::strerror(error),
              "check that the directory exists and is writable");
}

// Calls `take(data, size)` for each block of the file; false when it cannot be opened or read.
template <typename Take>
bool read_blocks(const std::filesystem::path& path, Take take) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return false;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) take(buffer, n);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  return !failed;
}

// Where the path itself is wrong (a directory, or in one that does not exist), the user can
// fix it: bad input, with what to give instead.
void check_writable_path(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw Error(ExitCode::bad_input, "`" + path.string() + "` is a directory",
                "name the file to write (a path in that directory, for example)");
  }
  const std::filesystem::path parent = path.parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, error)) {
    throw Error(
        ExitCode::bad_input,
        "cannot write `" + path.string() + "`: `" + parent.string() + "` is not a directory",
        "create it first (`mkdir -p " + util::sh_word(parent.string()) + "`) or write elsewhere");
  }
}

// Whether `path` is a regular file that holds exactly `content`: read block by block against it,
// never opened where it is not a regular file (a FIFO would wait for a writer).
bool holds_exactly(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool same = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
              static_cast<std::uint64_t>(st.st_size) == content.size();
  char buffer[1 << 16];
  std::size_t compared = 0;
  while (same) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      same = n == 0 && compared == content.size();
      break;
    }
    const auto got = static_cast<std::size_t>(n);
    same = got <= content.size() - compared &&
           std::memcmp(buffer, content.data() + compared, got) == 0;
    compared += got;
  }
  ::close(fd);
  return same;
}

}  // namespace

bool write_file_if_changed(const std::filesystem::path& path, std::string_view content,
                           Durability durability) {
  if (holds_exactly(path, content)) return false;
  write_file_atomic(path, content, durability);
  return true;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content,
                       Durability durability) {
  check_writable_path(path);
  const std::string temporary = temporary_name_beside(path);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail_write(path, "create", errno);
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      fail_write(path, "write", error);
    }
    written += static_cast<std::size_t>(n);
  }
  const bool synced = durability == Durability::unsynced || ::fsync(fd) == 0;
  if (!synced || ::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail_write(path, "flush", error);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail_write(path, "rename", error);
  }
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ExitCode::bad_input, "cannot read `" + path.string() + "`: " + std::strerror(errno),
                "check the path");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Read straight into a text sized by fstat (detail::read_fd): a warm lock reads some 400 cache
// entries this way.
std::optional<std::string> try_read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  const std::size_t expected = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
                                   ? static_cast<std::size_t>(st.st_size)
                                   : std::size_t{1} << 16;
  bool failed = false;
  std::string text =
      detail::read_fd(fd, expected, std::numeric_limits<std::size_t>::max(), &failed);
  ::close(fd);
  if (failed) return std::nullopt;
  return text;
}

std::optional<std::string> try_file_sha256_hex(const std::filesystem::path& path) {
  Sha256 hasher;
  if (!read_blocks(path, [&](const char* data, std::size_t n) { hasher.update(data, n); })) {
    return std::nullopt;
  }
  return hasher.hex_digest();
}

}  // namespace bevenv::core
