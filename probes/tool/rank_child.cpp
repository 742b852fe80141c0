#include "rank_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <thread>

#include "isolation.hpp"

namespace bevenv::probe_tool {
namespace {

constexpr const char* kIdPrefix = "nccl-id ";
constexpr std::size_t kMiB = 1024 * 1024;

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return;
    done += static_cast<std::size_t>(wrote);
  }
}

// What the test hooks report instead of a real all-reduce.
json selftest_collective(const CollectiveSetup& setup, const std::string& mode,
                         const std::function<void(const std::string&)>& publish_id) {
  if (setup.rank == 0) publish_id(std::string(256, '0'));
  if (mode == "hang") {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (mode == "crash") ::raise(SIGSEGV);
  const double busbw = std::strtod(mode.substr(mode.find(':') + 1).c_str(), nullptr);
  const double n = setup.world_size;
  const double algbw = n > 1 ? busbw * n / (2.0 * (n - 1)) : busbw;
  const std::size_t bytes = 8 * kMiB;
  return {{"status", "ok"},
          {"selftest", true},
          {"device", setup.local_rank},
          {"correct", true},
          {"results",
           {{{"bytes", bytes},
             {"time_us", static_cast<double>(bytes) / (algbw * 1e9) * 1e6},
             {"algbw_gbps", algbw},
             {"busbw_gbps", busbw},
             {"wrong_elements", 0}}}}};
}

[[noreturn]] void child_main(int fd, const CollectiveSetup& setup,
                             const ChildBehaviour& behaviour) {
  // stdout belongs to rank 0's aggregate; NCCL_DEBUG output goes to stderr.
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  auto publish = [fd](const std::string& hex) { write_all(fd, kIdPrefix + hex + "\n"); };
  std::string text;
  try {
    const json report = behaviour.selftest.empty()
                            ? run_rank_collective(setup, publish)
                            : selftest_collective(setup, behaviour.selftest, publish);
    text = report.dump();
  } catch (const std::exception& e) {
    text = json{{"status", "error"}, {"error", e.what()}}.dump();
  }
  write_all(fd, text);
  ::close(fd);
  // _exit: the CUDA and NCCL libraries' atexit handlers are not ours to run.
  ::_exit(0);
}

}  // namespace

CollectiveChild::~CollectiveChild() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (fd_ >= 0) ::close(fd_);
}

bool CollectiveChild::start(const CollectiveSetup& setup, const ChildBehaviour& behaviour,
                            Deadline deadline) {
  started_ = RendezvousClock::now();
  deadline_ = deadline;
  timeout_s_ = std::chrono::duration<double>(deadline - started_).count();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], setup, behaviour);
  }
  ::close(fds[1]);
  pid_ = pid;
  fd_ = fds[0];
  return true;
}

bool CollectiveChild::read_until(Deadline deadline, bool stop_at_id) {
  std::array<char, 65536> chunk{};
  while (!eof_) {
    if (stop_at_id && id_) return true;
    pollfd polled{fd_, POLLIN, 0};
    const int wait = millis_until(deadline);
    const int ready = wait == 0 ? 0 : ::poll(&polled, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t got = ::read(fd_, chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      eof_ = true;
      break;
    }
    buffer_.append(chunk.data(), static_cast<std::size_t>(got));
    if (!id_ && buffer_.rfind(kIdPrefix, 0) == 0) {
      const std::size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        id_ = buffer_.substr(std::strlen(kIdPrefix), newline - std::strlen(kIdPrefix));
        buffer_.erase(0, newline + 1);
      }
    }
  }
  return true;
}

std::optional<std::string> CollectiveChild::wait_for_id() {
  if (pid_ < 0) return std::nullopt;
  read_until(deadline_, true);
  return id_;
}

json CollectiveChild::result() {
  if (pid_ < 0) return {{"status", "error"}, {"error", "could not start the collective process"}};
  const bool finished = read_until(deadline_, false);
  const double elapsed_ms =
      std::chrono::duration<double, std::milli>(RendezvousClock::now() - started_).count();
  int status = 0;
  if (!finished) ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  json out;
  if (!finished) {
    out = {{"status", "timeout"},
           {"error", "the all-reduce did not finish within " +
                         std::to_string(static_cast<int>(timeout_s_)) +
                         " s and was killed (a rank that never joined, or a hung NCCL)"}};
  } else if (WIFSIGNALED(status)) {
    out = {{"status", "crashed"},
           {"signal_name", signal_name(WTERMSIG(status))},
           {"error", "the all-reduce process was killed by " + signal_name(WTERMSIG(status))}};
  } else {
    out = json::parse(buffer_, nullptr, false);
    if (out.is_discarded() || !out.is_object()) {
      out = {{"status", "error"}, {"error", "the all-reduce process returned no report"}};
    }
  }
  out["duration_ms"] = elapsed_ms;
  return out;
}

}  // namespace bevenv::probe_tool
