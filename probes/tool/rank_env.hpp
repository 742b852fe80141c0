#pragma once
// Where this process sits in a cluster job: rank, world size, local rank and the master that
// rank 0 listens on, read from whichever launcher started it (torchrun, Slurm, Open MPI, PMI).
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bevenv::probe_tool {

// Which rank of how many, and which GPU of its node (the local rank): what the collective needs
// to know of a rank's place.
struct RankPosition {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
};

struct RankPlace : RankPosition {
  std::string launcher;     // "torchrun", "slurm", "openmpi", "pmi"
  std::string master_host;  // where rank 0 runs
  int master_port = 0;      // MASTER_PORT (or --master); 0 when nothing gave one
  std::string master_source;
};

// What the command line adds to the environment; flags win over environment variables.
struct RankFlags {
  std::optional<std::string> master;  // "HOST:PORT" (IPv6 as "[addr]:PORT")
  std::optional<int> rendezvous_port;
};

// The default TCP port for the launcher's master when neither MASTER_PORT nor --master gives one
// (torchrun's own default); the rendezvous listens one above it.
constexpr int kDefaultMasterPort = 29500;

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Reads the launcher's variables through `env`; an error message (naming the variables it
// looked for) when no launcher is recognised or a value is malformed.
struct RankPlaceResult {
  std::optional<RankPlace> place;
  std::string error;
};
RankPlaceResult detect_rank_place(const EnvLookup& env, const RankFlags& flags);

// The process environment as an EnvLookup.
EnvLookup process_env();

// Expands a Slurm host list such as `node[01-04,07],gpu-a[1-2]-b[3,5]` into host names,
// keeping the zero padding of each range. nullopt when the text is malformed.
std::optional<std::vector<std::string>> expand_slurm_hostlist(const std::string& text);

// Splits "host:port", "[v6addr]:port"; nullopt when the port is missing or out of range.
std::optional<std::pair<std::string, int>> split_host_port(const std::string& text);

}  // namespace bevenv::probe_tool
