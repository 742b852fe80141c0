// Rank 0 (the leader) and the other ranks (followers) of `bevenv-probe --rank`. Phases, each
// bounded by --rank-timeout: hellos reach rank 0; rank 0 sends "go" with the NCCL id (or why
// the all-reduce is skipped); every rank runs the collective in a child, then its local probes,
// and sends its report; rank 0 aggregates and prints.
#include "rank_run.hpp"

#include <poll.h>
#include <unistd.h>

#include <iostream>

#include "rank_aggregate.hpp"
#include "rank_messages.hpp"

namespace bevenv::probe_tool {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitProblem = 1;
constexpr int kExitUsage = 2;
constexpr auto kAckWait = std::chrono::seconds(5);
// Slack on top of rank 0's own bounded phases before a follower gives up on it.
constexpr auto kFollowerSlack = std::chrono::seconds(10);

std::string hostname() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

int whole_seconds(std::chrono::milliseconds duration) {
  return static_cast<int>((duration.count() + 999) / 1000);
}

std::string rank_name(const RankPlace& place) {
  return "bevenv-probe rank " + std::to_string(place.rank) + "/" + std::to_string(place.world_size);
}

struct Leader {
  const RankPlace& place;
  const RankOptions& options;
  int port;
  std::vector<std::string> lib_dirs;
  AggregateContext context;
  std::vector<RankRecord> records;
  std::vector<Socket> sockets;  // by rank; rank 0's stays closed

  void take_hello(Socket& socket, const json& hello) {
    const std::string from = socket.peer_address();
    const HelloVerdict verdict = read_hello(hello, place.world_size, from);
    if (!verdict.rank) {
      context.extra_problems.push_back(verdict.problem);
      return;
    }
    if (!verdict.warning.empty()) context.extra_problems.push_back(verdict.warning);
    const int rank = *verdict.rank;
    auto& record = records[static_cast<std::size_t>(rank)];
    if (sockets[static_cast<std::size_t>(rank)].is_open()) {
      context.extra_problems.push_back("rank " + std::to_string(rank) + " connected twice (" +
                                       record.address + " and " + from + ")");
      return;
    }
    record.state = "connected";
    record.address = from;
    record.hello = hello;
    sockets[static_cast<std::size_t>(rank)] = std::move(socket);
  }

  void gather_hellos(const Socket& listener, Deadline deadline) {
    std::vector<Socket> pending;
    int connected = 0;
    while (connected < place.world_size - 1 && RendezvousClock::now() < deadline) {
      std::vector<pollfd> polled{{listener.fd(), POLLIN, 0}};
      for (const auto& socket : pending) polled.push_back({socket.fd(), POLLIN, 0});
      if (::poll(polled.data(), polled.size(), millis_until(deadline)) <= 0) continue;
      for (std::size_t i = polled.size(); i-- > 1;) {
        if (polled[i].revents == 0) continue;
        Socket& socket = pending[i - 1];
        const bool open = socket.read_available();
        const json hello = parse_message(socket.next_message());
        if (!hello.is_null()) {
          take_hello(socket, hello);
          connected += socket.is_open() ? 0 : 1;  // an accepted hello moved the socket away
        }
        if (!hello.is_null() || !open) {
          pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i - 1));
        }
      }
      if (polled[0].revents != 0) {
        for (Socket socket = accept_pending(listener); socket.is_open();
             socket = accept_pending(listener)) {
          pending.push_back(std::move(socket));
        }
      }
    }
  }

  std::vector<int> missing_ranks() const {
    std::vector<int> missing;
    for (int rank = 1; rank < place.world_size; ++rank) {
      if (!sockets[static_cast<std::size_t>(rank)].is_open()) missing.push_back(rank);
    }
    return missing;
  }

  void send_to_all(const json& message, Deadline deadline) {
    for (int rank = 1; rank < place.world_size; ++rank) {
      auto& socket = sockets[static_cast<std::size_t>(rank)];
      if (!socket.is_open() || socket.send_message(message.dump(), deadline)) continue;
      auto& record = records[static_cast<std::size_t>(rank)];
      record.state = "lost";
      record.error = "sending to it failed: " + socket.error();
      socket.close();
    }
  }

  void gather_reports(Deadline deadline) {
    for (;;) {
      std::vector<pollfd> polled;
      std::vector<int> ranks;
      for (int rank = 1; rank < place.world_size; ++rank) {
        const auto& record = records[static_cast<std::size_t>(rank)];
        if (record.state == "connected") {
          polled.push_back({sockets[static_cast<std::size_t>(rank)].fd(), POLLIN, 0});
          ranks.push_back(rank);
        }
      }
      if (polled.empty()) return;
      const int wait = millis_until(deadline);
      if (wait == 0 || ::poll(polled.data(), polled.size(), wait) == 0) break;
      for (std::size_t i = 0; i < polled.size(); ++i) {
        if (polled[i].revents == 0) continue;
        const auto rank = static_cast<std::size_t>(ranks[i]);
        Socket& socket = sockets[rank];
        auto& record = records[rank];
        const bool open = socket.read_available();
        const json message = parse_message(socket.next_message());
        if (auto report = read_report(message)) {
          record.state = "reported";
          record.report = std::move(*report);
          socket.send_message(json{{"type", "ack"}}.dump(), RendezvousClock::now() + kAckWait);
          socket.close();
        } else if (!open) {
          record.state = "lost";
          record.error = "the connection closed before its report arrived (did the process die?)";
          socket.close();
        }
      }
    }
    for (int rank = 1; rank < place.world_size; ++rank) {
      auto& record = records[static_cast<std::size_t>(rank)];
      if (record.state != "connected") continue;
      record.state = "timeout";
      record.error = "no report within " + std::to_string(whole_seconds(2 * options.rank_timeout)) +
                     " s of the start of the all-reduce";
    }
  }

  // Starts the collective on rank 0 and hands every rank the NCCL id, or the reason to skip.
  json run_collective_phase() {
    const auto timeout = options.rank_timeout;
    std::optional<std::string> skip;
    const auto missing = missing_ranks();
    if (options.no_collective) {
      skip = "--no-collective";
    } else if (!missing.empty()) {
      skip = std::to_string(missing.size()) + " of " + std::to_string(place.world_size) +
             " ranks never arrived";
    }
    CollectiveChild child;
    json own;
    std::optional<std::string> id;
    if (!skip) {
      const CollectiveSetup setup{place, std::nullopt, lib_dirs};
      child.start(setup, options.child, RendezvousClock::now() + timeout);
      id = child.wait_for_id();
      if (!id) {
        own = child.result();
        skip = "rank 0 cannot run it: " + own.value("status", "error") + ": " +
               error_text(own.value("error", json()));
        context.collective_skip_is_problem = true;
      }
    }
    context.collective_skip_reason = skip;
    send_to_all({{"type", "go"},
                 {"nccl_id", id ? json(*id) : json(nullptr)},
                 {"skip_reason", skip ? json(*skip) : json(nullptr)}},
                RendezvousClock::now() + timeout);
    if (id) return child.result();
    return own.is_null() ? json{{"status", "skipped"}, {"reason", *skip}} : own;
  }

  int run() {
    const auto timeout = options.rank_timeout;
    context.launcher = place.launcher;
    context.world_size = place.world_size;
    context.master = place.master_host + ":" + std::to_string(place.master_port);
    context.rendezvous_port = port;
    context.rank_timeout_s = static_cast<double>(timeout.count()) / 1000.0;
    context.min_busbw_gbps = options.min_busbw_gbps;
    records.resize(static_cast<std::size_t>(place.world_size));
    sockets.resize(static_cast<std::size_t>(place.world_size));
    for (int rank = 0; rank < place.world_size; ++rank) {
      records[static_cast<std::size_t>(rank)].rank = rank;
      records[static_cast<std::size_t>(rank)].state = "missing";
    }
    if (place.world_size > 1) {
      std::string error;
      const Socket listener = listen_on(port, error);
      if (listener.is_open()) {
        gather_hellos(listener, RendezvousClock::now() + timeout);
      } else {
        context.extra_problems.push_back("rank 0 cannot listen on port " + std::to_string(port) +
                                         ": " + error + "; pass `--rendezvous-port`");
      }
    }
    const json collective = run_collective_phase();
    // The others start their collective when "go" reaches them and may spend one timeout in it,
    // then one more on their probes and report.
    const Deadline reports_due = RendezvousClock::now() + 2 * timeout;
    auto& own = records[0];
    own.state = "reported";
    own.report = rank_report(place, options, collective);
    gather_reports(std::max(reports_due, RendezvousClock::now() + timeout));
    for (auto& record : records) {
      if (record.state == "missing" && record.rank != 0) {
        record.error = "never connected within " + std::to_string(whole_seconds(timeout)) + " s";
      }
    }
    const json aggregate = aggregate_cluster(context, records);
    std::cout << aggregate.dump(2) << "\n";
    std::cout.flush();
    return aggregate.value("status", "") == "ok" ? kExitOk : kExitProblem;
  }
};

int run_follower(const RankPlace& place, const RankOptions& options, int port,
                 const std::vector<std::string>& lib_dirs) {
  const auto timeout = options.rank_timeout;
  const std::string where = place.master_host + ":" + std::to_string(port);
  std::string error;
  Socket socket = connect_until(place.master_host, port, RendezvousClock::now() + timeout, error);
  if (!socket.is_open()) {
    std::cerr << rank_name(place) << ": cannot reach rank 0 at " << where << " within "
              << whole_seconds(timeout) << " s (" << error << "; master from "
              << place.master_source << "); is rank 0 running and the port open?\n";
    return kExitProblem;
  }
  const json hello{{"type", "hello"},
                   {"rank", place.rank},
                   {"world_size", place.world_size},
                   {"local_rank", place.local_rank},
                   {"host", hostname()},
                   {"pid", static_cast<long>(::getpid())}};
  if (!socket.send_message(hello.dump(), RendezvousClock::now() + timeout)) {
    std::cerr << rank_name(place) << ": rank 0 at " << where << " dropped the connection ("
              << socket.error() << ")\n";
    return kExitProblem;
  }
  if (options.selftest_exit_after_hello) ::_exit(3);
  // Rank 0 spends up to one timeout on hellos and one on its NCCL id before it answers.
  const auto go = read_go(
      parse_message(socket.receive_message(RendezvousClock::now() + 2 * timeout + kFollowerSlack)));
  if (!go) {
    std::cerr << rank_name(place) << ": no word from rank 0 at " << where << " ("
              << (socket.error().empty() ? "malformed message" : socket.error()) << ")\n";
    return kExitProblem;
  }
  json collective;
  if (go->nccl_id) {
    CollectiveChild child;
    const CollectiveSetup setup{place, *go->nccl_id, lib_dirs};
    child.start(setup, options.child, RendezvousClock::now() + timeout);
    collective = child.result();
  } else {
    collective = {{"status", "skipped"}, {"reason", go->skip_reason}};
  }
  const json report = rank_report(place, options, collective);
  if (!socket.send_message(json{{"type", "report"}, {"report", report}}.dump(),
                           RendezvousClock::now() + timeout)) {
    std::cerr << rank_name(place) << ": could not send the report to rank 0 at " << where << " ("
              << socket.error() << ")\n";
    return kExitProblem;
  }
  const json ack = parse_message(socket.receive_message(RendezvousClock::now() + timeout));
  if (ack.is_null()) {
    std::cerr << rank_name(place) << ": rank 0 at " << where << " did not confirm the report ("
              << socket.error() << ")\n";
    return kExitProblem;
  }
  std::cerr << rank_name(place) << " (" << hostname() << "): report delivered to rank 0 at "
            << where << "\n";
  return kExitOk;
}

std::vector<std::string> python_nvidia_dirs(const RankOptions& options) {
  std::vector<std::string> dirs;
  if (!options.python || options.no_collective) return dirs;
  Options probe_options;
  probe_options.python = options.python;
  probe_options.timeout = options.probe_timeout;
  const json paths = python_library_dirs(probe_options);
  for (const auto& dir : paths.value("nvidia_lib_dirs", json::array())) {
    if (dir.is_string()) dirs.push_back(dir.get<std::string>());
  }
  return dirs;
}

}  // namespace

int run_rank(const RankOptions& options) {
  const RankPlaceResult found = detect_rank_place(process_env(), options.flags);
  if (!found.place) {
    std::cerr << "error: " << found.error << "\n";
    return kExitUsage;
  }
  const RankPlace& place = *found.place;
  const int port = options.flags.rendezvous_port.value_or(place.master_port + 1);
  // NCCL from the environment's nvidia-nccl wheel, where there is no system libnccl.
  const auto lib_dirs = python_nvidia_dirs(options);
  if (place.rank == 0) {
    Leader leader{place, options, port, lib_dirs, {}, {}, {}};
    return leader.run();
  }
  return run_follower(place, options, port, lib_dirs);
}

}  // namespace bevenv::probe_tool
