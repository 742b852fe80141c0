#include "rank_env.hpp"

#include <cstdlib>

namespace bevenv::probe_tool {
namespace {

constexpr int kMaxPort = 65535;
constexpr std::size_t kMaxExpandedHosts = 100000;

std::optional<long> parse_long(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::strtol(text.c_str(), nullptr, 10);
}

std::optional<int> parse_int(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const auto value = parse_long(*text);
  if (!value || *value > 1000000000L) return std::nullopt;
  return static_cast<int>(*value);
}

std::string zero_pad(long value, std::size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// The alternatives one `[...]` group stands for: "01-03,07" -> 01 02 03 07.
std::optional<std::vector<std::string>> expand_group(const std::string& body) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= body.size()) {
    const std::size_t comma = body.find(',', start);
    const std::string part =
        body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t dash = part.find('-');
    const std::string low_text = part.substr(0, dash);
    const std::string high_text = dash == std::string::npos ? low_text : part.substr(dash + 1);
    const auto low = parse_long(low_text);
    const auto high = parse_long(high_text);
    if (!low || !high || *high < *low) return std::nullopt;
    if (static_cast<std::size_t>(*high - *low) > kMaxExpandedHosts) return std::nullopt;
    for (long value = *low; value <= *high; ++value)
      out.push_back(zero_pad(value, low_text.size()));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// One top-level item: literal text and bracket groups, expanded as their cartesian product.
std::optional<std::vector<std::string>> expand_item(const std::string& item) {
  std::vector<std::string> names{""};
  std::size_t pos = 0;
  while (pos < item.size()) {
    if (item[pos] == ']') return std::nullopt;
    if (item[pos] != '[') {
      const std::size_t next = item.find_first_of("[]", pos);
      const std::string literal = item.substr(pos, next == std::string::npos ? next : next - pos);
      for (auto& name : names) name += literal;
      pos = next == std::string::npos ? item.size() : next;
      continue;
    }
    const std::size_t close = item.find(']', pos);
    if (close == std::string::npos) return std::nullopt;
    const auto group = expand_group(item.substr(pos + 1, close - pos - 1));
    if (!group) return std::nullopt;
    std::vector<std::string> product;
    for (const auto& name : names) {
      for (const auto& suffix : *group) product.push_back(name + suffix);
    }
    if (product.size() > kMaxExpandedHosts) return std::nullopt;
    names = std::move(product);
    pos = close + 1;
  }
  return names;
}

struct Found {
  int rank = 0;
  int world_size = 0;
  int local_rank = 0;
};

}  // namespace

std::optional<std::vector<std::string>> expand_slurm_hostlist(const std::string& text) {
  std::vector<std::string> hosts;
  int depth = 0;
  std::string item;
  auto flush = [&]() -> bool {
    if (item.empty()) return false;
    const auto expanded = expand_item(item);
    if (!expanded) return false;
    hosts.insert(hosts.end(), expanded->begin(), expanded->end());
    item.clear();
    return true;
  };
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0 || depth > 1 || c == ' ') return std::nullopt;
    if (c == ',' && depth == 0) {
      if (!flush()) return std::nullopt;
      continue;
    }
    item += c;
  }
  if (depth != 0 || !flush()) return std::nullopt;
  return hosts;
}

std::optional<std::pair<std::string, int>> split_host_port(const std::string& text) {
  std::string host;
  std::string port_text;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return std::nullopt;
    }
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon) return std::nullopt;
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  const auto port = parse_long(port_text);
  if (host.empty() || !port || *port < 1 || *port > kMaxPort) return std::nullopt;
  return std::make_pair(host, static_cast<int>(*port));
}

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

RankPlaceResult detect_rank_place(const EnvLookup& env, const RankFlags& flags) {
  struct Launcher {
    const char* name;
    const char* rank;
    const char* size;
    const char* local;
  };
  // torchrun first: under srun or mpirun its own RANK is the one that names the process.
  static const Launcher kLaunchers[] = {
      {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
      {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
      {"pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
      {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"}};
  RankPlaceResult result;
  RankPlace place;
  bool found = false;
  for (const auto& launcher : kLaunchers) {
    const auto rank_text = env(launcher.rank);
    const auto size_text = env(launcher.size);
    if (!rank_text || !size_text) continue;
    const auto rank = parse_int(rank_text);
    const auto size = parse_int(size_text);
    const auto local_text = env(launcher.local);
    const auto local = local_text ? parse_int(local_text) : std::optional<int>(0);
    if (!rank || !size || !local || *size < 1 || *rank >= *size) {
      result.error = std::string("the ") + launcher.name + " variables `" + launcher.rank + "=" +
                     rank_text.value_or("") + "`, `" + launcher.size + "=" +
                     size_text.value_or("") + "`, `" + launcher.local + "=" +
                     local_text.value_or("") + "` are not a valid rank of a world";
      return result;
    }
    place.launcher = launcher.name;
    place.rank = *rank;
    place.world_size = *size;
    place.local_rank = *local;
    found = true;
    break;
  }
  if (!found) {
    result.error =
        "no launcher found: `--rank` reads RANK/WORLD_SIZE/LOCAL_RANK (torchrun), "
        "OMPI_COMM_WORLD_* (mpirun), PMI_RANK/PMI_SIZE or SLURM_PROCID/SLURM_NTASKS (srun)";
    return result;
  }

  if (flags.master) {
    const auto split = split_host_port(*flags.master);
    if (!split) {
      result.error = "`--master` wants HOST:PORT, got `" + *flags.master + "`";
      return result;
    }
    place.master_host = split->first;
    place.master_port = split->second;
    place.master_source = "--master";
  } else if (const auto addr = env("MASTER_ADDR"); addr && !addr->empty()) {
    place.master_host = *addr;
    place.master_source = "MASTER_ADDR";
  } else if (place.launcher == "slurm") {
    for (const char* variable : {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"}) {
      const auto list = env(variable);
      if (!list || list->empty()) continue;
      const auto hosts = expand_slurm_hostlist(*list);
      if (!hosts || hosts->empty()) {
        result.error = std::string("cannot read the host list `") + variable + "=" + *list + "`";
        return result;
      }
      place.master_host = hosts->front();
      place.master_source = std::string("first host of ") + variable;
      break;
    }
  }
  if (place.master_host.empty()) {
    if (place.world_size > 1) {
      result.error =
          "no master: set MASTER_ADDR (and MASTER_PORT) for every rank or pass "
          "`--master HOST:PORT` (rank 0's host)";
      return result;
    }
    place.master_host = "127.0.0.1";
    place.master_source = "single rank";
  }
  if (place.master_port == 0) {
    const auto port_text = env("MASTER_PORT");
    const auto port = parse_int(port_text);
    if (port_text && (!port || *port < 1 || *port >= kMaxPort)) {
      result.error = "`MASTER_PORT=" + *port_text + "` is not a TCP port";
      return result;
    }
    place.master_port = port ? *port : kDefaultMasterPort;
  }
  if (flags.rendezvous_port && (*flags.rendezvous_port < 1 || *flags.rendezvous_port > kMaxPort)) {
    result.error = "`--rendezvous-port` wants a TCP port";
    return result;
  }
  result.place = place;
  return result;
}

}  // namespace bevenv::probe_tool
