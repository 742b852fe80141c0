#include "bevenv/core/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>

extern char** environ;

namespace bevenv::core {
namespace {

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  bool open() {
    std::array<int, 2> fds{};
    if (::pipe2(fds.data(), O_CLOEXEC) != 0) return false;
    read_end = fds[0];
    write_end = fds[1];
    return true;
  }
  void close_all() {
    if (read_end >= 0) ::close(read_end);
    if (write_end >= 0) ::close(write_end);
    read_end = write_end = -1;
  }
};

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos && extra.count(entry.substr(0, eq)) != 0) continue;
    entries.push_back(entry);
  }
  for (const auto& [key, value] : extra) entries.push_back(key + "=" + value);
  return entries;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Runs in the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(Pipe& in, Pipe& out, Pipe& err, char** argv, char** envp,
                             const char* working_directory) {
  ::setpgid(0, 0);
  ::dup2(in.read_end, STDIN_FILENO);
  ::dup2(out.write_end, STDOUT_FILENO);
  ::dup2(err.write_end, STDERR_FILENO);
  if (working_directory != nullptr && ::chdir(working_directory) != 0) ::_exit(127);
  ::execvpe(argv[0], argv, envp);
  ::_exit(127);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result;
  if (argv.empty()) {
    result.spawn_failed = true;
    return result;
  }
  Pipe in, out, err;
  if (!in.open() || !out.open() || !err.open()) {
    in.close_all();
    out.close_all();
    err.close_all();
    result.spawn_failed = true;
    return result;
  }
  std::vector<std::string> argv_copy = argv;
  std::vector<std::string> env = merged_environment(options.extra_env);
  std::vector<char*> argv_c = c_strings(argv_copy);
  std::vector<char*> env_c = c_strings(env);
  const char* cwd = options.working_directory ? options.working_directory->c_str() : nullptr;

  const pid_t pid = ::fork();
  if (pid == 0) exec_child(in, out, err, argv_c.data(), env_c.data(), cwd);
  ::close(in.read_end);
  ::close(out.write_end);
  ::close(err.write_end);
  if (pid < 0) {
    ::close(in.write_end);
    ::close(out.read_end);
    ::close(err.read_end);
    result.spawn_failed = true;
    return result;
  }
  // Keep our side of the pipes non-blocking so a child that neither reads nor exits is bounded.
  for (int fd : {in.write_end, out.read_end, err.read_end}) ::fcntl(fd, F_SETFL, O_NONBLOCK);
  const std::string input = options.input.value_or("");
  std::size_t input_written = 0;
  if (input.empty()) {
    ::close(in.write_end);
    in.write_end = -1;
  }

  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  std::array<char, 65536> buffer{};
  bool out_open = true, err_open = true;
  while (out_open || err_open || in.write_end >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    std::array<pollfd, 3> fds{};
    nfds_t count = 0;
    if (out_open) fds[count++] = pollfd{out.read_end, POLLIN, 0};
    if (err_open) fds[count++] = pollfd{err.read_end, POLLIN, 0};
    if (in.write_end >= 0) fds[count++] = pollfd{in.write_end, POLLOUT, 0};
    const int ready =
        ::poll(fds.data(), count, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in.write_end) {
        const ssize_t n =
            ::write(in.write_end, input.data() + input_written, input.size() - input_written);
        if (n > 0) input_written += static_cast<std::size_t>(n);
        if (n < 0 && errno != EAGAIN) input_written = input.size();
        if (input_written >= input.size()) {
          ::close(in.write_end);
          in.write_end = -1;
        }
        continue;
      }
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        (fds[i].fd == out.read_end ? result.out : result.err)
            .append(buffer.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        (fds[i].fd == out.read_end ? out_open : err_open) = false;
      }
    }
  }
  if (in.write_end >= 0) ::close(in.write_end);
  ::close(out.read_end);
  ::close(err.read_end);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Grandchildren may hold no pipes but could still run: end the whole group either way.
  if (result.timed_out) ::kill(-pid, SIGKILL);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    if (result.exit_code == 127 && result.out.empty() && result.err.empty()) {
      result.spawn_failed = true;
    }
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace bevenv::core
