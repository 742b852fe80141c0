#include "stream_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace bevenv::containers::detail {
namespace {

class Pipe {
 public:
  Pipe() {
    if (::pipe2(fds_, O_CLOEXEC) != 0) fds_[0] = fds_[1] = -1;
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  bool ok() const { return fds_[0] >= 0; }
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  void close_read() { close_fd(fds_[0]); }
  void close_write() { close_fd(fds_[1]); }

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int fds_[2] = {-1, -1};
};

std::vector<std::string> environment_with(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    if (!extra.contains(std::string(name))) env.emplace_back(entry);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

StreamResult run_streaming(const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& extra_env,
                           const std::function<void(std::string_view)>& on_line) {
  StreamResult result;
  Pipe output;
  if (argv.empty() || !output.ok()) {
    result.spawn_failed = true;
    result.spawn_error = argv.empty() ? "no command" : std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, output.write_end(), 1);
  posix_spawn_file_actions_adddup2(&actions, output.write_end(), 2);
  std::vector<std::string> args = argv;
  std::vector<std::string> env = environment_with(extra_env);
  auto arg_pointers = pointers(args);
  auto env_pointers = pointers(env);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0].c_str(), &actions, nullptr, arg_pointers.data(),
                                     env_pointers.data());
  posix_spawn_file_actions_destroy(&actions);
  output.close_write();
  if (spawned != 0) {
    result.spawn_failed = true;
    result.spawn_error = std::strerror(spawned);
    return result;
  }

  std::string pending;
  char buffer[8192];
  while (true) {
    const ssize_t got = ::read(output.read_end(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(got));
    std::size_t start = 0;
    for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n', start)) {
      std::string_view line(pending.data() + start, end - start);
      if (line.ends_with('\r')) line.remove_suffix(1);
      on_line(line);
      start = end + 1;
    }
    pending.erase(0, start);
  }
  if (!pending.empty()) on_line(pending);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.exit_code = -1;
      return result;
    }
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace bevenv::containers::detail
