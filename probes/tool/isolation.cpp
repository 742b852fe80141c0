#include "isolation.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <exception>
#include <utility>

namespace bevenv::probe_tool {
namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(left.count());
}

void write_all(int fd, const std::string& text) {
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
}

bool drain_until(std::vector<int>& fds, std::vector<std::string*>& sinks,
                 Clock::time_point deadline) {
  std::array<char, 65536> buffer{};
  while (!fds.empty()) {
    std::vector<pollfd> polled;
    for (int fd : fds) polled.push_back(pollfd{fd, POLLIN, 0});
    const int wait = remaining_ms(deadline);
    if (wait == 0) return false;
    const int ready = ::poll(polled.data(), polled.size(), wait);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (ready == 0) return false;
    for (std::size_t i = polled.size(); i-- > 0;) {
      if (polled[i].revents == 0) continue;
      const ssize_t got = ::read(polled[i].fd, buffer.data(), buffer.size());
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ::close(polled[i].fd);
        fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(i));
        sinks.erase(sinks.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      sinks[i]->append(buffer.data(), static_cast<std::size_t>(got));
    }
  }
  return true;
}

// Drains the given fds into the strings until every fd reaches EOF or the deadline passes.
// Returns false on timeout.
bool drain(std::vector<int> fds, std::vector<std::string*> sinks, Clock::time_point deadline) {
  const bool finished = drain_until(fds, sinks, deadline);
  for (int fd : fds) ::close(fd);
  return finished;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

double elapsed_ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

std::string signal_name(int signal) {
  // The signals a probe dies of (a crash, or a kill at its deadline), by their <signal.h> names.
  static constexpr std::pair<int, const char*> kNames[] = {
      {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},  {SIGILL, "SIGILL"},
      {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}};
  for (const auto& [number, name] : kNames) {
    if (number == signal) return name;
  }
  return "signal " + std::to_string(signal);
}

IsolatedProbe start_isolated(const std::string& name, const std::function<nlohmann::json()>& probe,
                             std::chrono::milliseconds timeout) {
  IsolatedProbe started{name, -1, -1, Clock::now(), timeout, nullptr};
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    started.failed = {{"status", "error"}, {"error", std::string("pipe: ") + std::strerror(errno)}};
    return started;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    started.failed = {{"status", "error"}, {"error", std::string("fork: ") + std::strerror(errno)}};
    return started;
  }
  if (pid == 0) {
    // The report owns stdout; NCCL_DEBUG and friends print there, so send them to stderr.
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ::close(pipe_fds[0]);
    nlohmann::json result;
    try {
      result = probe();
    } catch (const std::exception& e) {
      result = nlohmann::json{{"status", "error"}, {"error", e.what()}};
    }
    // The child's own time: the parent may collect the report later, after other probes.
    if (result.is_object()) result["duration_ms"] = elapsed_ms(started.start);
    write_all(pipe_fds[1], result.dump());
    ::close(pipe_fds[1]);
    // _exit: the CUDA and NCCL libraries' atexit handlers are not ours to run.
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  started.pid = pid;
  started.fd = pipe_fds[0];
  return started;
}

nlohmann::json finish_isolated(IsolatedProbe& started) {
  if (started.pid < 0) {
    started.failed["duration_ms"] = elapsed_ms(started.start);
    return started.failed;
  }
  std::string text;
  const bool finished = drain({started.fd}, {&text}, started.start + started.timeout);
  started.fd = -1;
  if (!finished) {
    ::kill(started.pid, SIGKILL);
    wait_for(started.pid);
    nlohmann::json out{
        {"status", "timeout"},
        {"error", "probe `" + started.name + "` did not finish within " +
                      std::to_string(started.timeout.count() / 1000) + " s and was killed"}};
    out["duration_ms"] = elapsed_ms(started.start);
    return out;
  }
  const int status = wait_for(started.pid);
  nlohmann::json out;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    out = {{"status", "crashed"},
           {"signal", sig},
           {"signal_name", signal_name(sig)},
           {"error", "probe `" + started.name + "` was killed by " + signal_name(sig)}};
  } else {
    out = nlohmann::json::parse(text, nullptr, false);
    if (out.is_discarded() || !out.is_object()) {
      out = {{"status", "error"},
             {"error", "probe `" + started.name + "` returned no report (exit " +
                           std::to_string(WEXITSTATUS(status)) + ")"}};
    }
  }
  if (!out.contains("duration_ms") || !out["duration_ms"].is_number()) {
    out["duration_ms"] = elapsed_ms(started.start);
  }
  return out;
}

nlohmann::json run_isolated(const std::string& name, const std::function<nlohmann::json()>& probe,
                            std::chrono::milliseconds timeout) {
  IsolatedProbe started = start_isolated(name, probe, timeout);
  return finish_isolated(started);
}

ProgramResult run_program(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  ProgramResult result;
  const auto start = Clock::now();
  int out_pipe[2];
  int err_pipe[2];
  if (argv.empty() || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.spawn_failed = true;
    return result;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    result.spawn_failed = true;
    return result;
  }
  std::vector<char*> args;
  std::vector<std::string> storage = argv;
  for (auto& arg : storage) args.push_back(arg.data());
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::execvp(args[0], args.data());
    const std::string message = std::string("exec failed: ") + std::strerror(errno) + "\n";
    write_all(STDERR_FILENO, message);
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (pid < 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    result.spawn_failed = true;
    return result;
  }
  ::setpgid(pid, pid);  // also from here, so the kill below cannot race the child's own call
  const bool finished =
      drain({out_pipe[0], err_pipe[0]}, {&result.out, &result.err}, start + timeout);
  if (!finished) {
    ::kill(-pid, SIGKILL);
    result.timed_out = true;
  }
  const int status = wait_for(pid);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    if (result.exit_code == 127 && result.err.rfind("exec failed", 0) == 0) {
      result.spawn_failed = true;
    }
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace bevenv::probe_tool
