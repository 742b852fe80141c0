// The launcher-environment reader of `bevenv-probe --rank`. Slurm host lists are checked
// against python-hostlist (the expansion Slurm users script with), run from a venv the
// cluster_hostlist_setup fixture makes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "rank_env.hpp"

using namespace bevenv::probe_tool;

namespace {

// python-hostlist's expansion of `list`, or nullopt when it rejects the text.
std::optional<std::vector<std::string>> oracle_expand(const std::string& list) {
  const std::string command = std::string(BEVENV_HOSTLIST_PYTHON) +
                              " -c 'import hostlist, json, sys\n"
                              "try: print(json.dumps(hostlist.expand_hostlist(sys.argv[1])))\n"
                              "except hostlist.BadHostlist: print(\"null\")' '" +
                              list + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    out.append(buffer, got);
  REQUIRE(::pclose(pipe) == 0);
  const auto parsed = nlohmann::json::parse(out);
  if (parsed.is_null()) return std::nullopt;
  return parsed.get<std::vector<std::string>>();
}

EnvLookup env_of(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    const auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

}  // namespace

TEST_CASE("Slurm host lists expand as python-hostlist expands them", "[cluster]") {
  for (const std::string list :
       {"node01", "node[01-04,07]", "gpu[1-3],cpu[08-11]", "a[1-2]-b[3,5]", "rack[0-1]-n[098-101]",
        "x[7]", "n[1-10]", "c1,c2,d[3-4]", "h[009-011],z"}) {
    INFO(list);
    const auto ours = expand_slurm_hostlist(list);
    const auto theirs = oracle_expand(list);
    REQUIRE(theirs.has_value());
    REQUIRE(ours.has_value());
    CHECK(*ours == *theirs);
  }
  for (const std::string bad : {"node[01-", "node]1[", "n[3-1]", "n[a-b]", ""}) {
    INFO(bad);
    CHECK_FALSE(expand_slurm_hostlist(bad).has_value());
  }
}

TEST_CASE("the launcher is read from its own variables", "[cluster]") {
  const auto torch = detect_rank_place(env_of({{"RANK", "3"},
                                               {"WORLD_SIZE", "8"},
                                               {"LOCAL_RANK", "1"},
                                               {"MASTER_ADDR", "n0"},
                                               {"MASTER_PORT", "29400"},
                                               {"SLURM_PROCID", "0"},
                                               {"SLURM_NTASKS", "2"}}),
                                       {});
  REQUIRE(torch.place);
  CHECK(torch.place->launcher == "torchrun");
  CHECK(torch.place->rank == 3);
  CHECK(torch.place->local_rank == 1);
  CHECK(torch.place->master_host == "n0");
  CHECK(torch.place->master_port == 29400);

  const auto slurm = detect_rank_place(env_of({{"SLURM_PROCID", "5"},
                                               {"SLURM_NTASKS", "8"},
                                               {"SLURM_LOCALID", "1"},
                                               {"SLURM_JOB_NODELIST", "gpu[07-10]"}}),
                                       {});
  REQUIRE(slurm.place);
  CHECK(slurm.place->launcher == "slurm");
  CHECK(slurm.place->master_host == "gpu07");
  CHECK(slurm.place->master_port == kDefaultMasterPort);

  const auto mpi = detect_rank_place(env_of({{"OMPI_COMM_WORLD_RANK", "1"},
                                             {"OMPI_COMM_WORLD_SIZE", "2"},
                                             {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}),
                                     RankFlags{std::string("[fe80::1]:4000"), std::nullopt});
  REQUIRE(mpi.place);
  CHECK(mpi.place->master_host == "fe80::1");
  CHECK(mpi.place->master_port == 4000);

  CHECK_FALSE(detect_rank_place(env_of({}), {}).place);
  const auto bad = detect_rank_place(env_of({{"RANK", "4"}, {"WORLD_SIZE", "4"}}), {});
  CHECK_FALSE(bad.place);
  CHECK(bad.error.find("`RANK=4`") != std::string::npos);
  CHECK_FALSE(detect_rank_place(env_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}}), {}).place);
  CHECK_FALSE(split_host_port("host").has_value());
  CHECK_FALSE(split_host_port("host:70000").has_value());
}
