#pragma once
// Servers the index tests start on loopback: a child process killed (with its group) when the
// handle goes out of scope.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bevenv::test {

class ServerProcess {
 public:
  // Starts argv; when `port_on_stdout`, reads the port from the child's first line.
  ServerProcess(std::vector<std::string> argv, bool port_on_stdout, int port = 0) : port_(port) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    close(fds[1]);
    if (port_on_stdout) {
      std::FILE* out = fdopen(fds[0], "r");
      char line[64] = {};
      if (std::fgets(line, sizeof line, out) == nullptr) throw std::runtime_error("no port");
      port_ = std::stoi(line);
      stdout_ = out;
    } else {
      close(fds[0]);
    }
  }
  ~ServerProcess() {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    if (stdout_ != nullptr) std::fclose(stdout_);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::FILE* stdout_ = nullptr;
};

// Python's http.server serving `directory` on a free loopback port: a plain static file
// server, as find-links pages and PEP 658 files are often hosted.
inline std::vector<std::string> static_file_server(const std::string& directory) {
  return {"python3", "-c",
          "import http.server, functools, sys\n"
          "h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])\n"
          "s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), h)\n"
          "print(s.server_address[1], flush=True)\n"
          "s.serve_forever()\n",
          directory};
}

// A port nothing listens on right now.
inline int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// Waits until something accepts connections on the port.
inline bool wait_for_port(int port, std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool up = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    close(fd);
    if (up) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace bevenv::test
