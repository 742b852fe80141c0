// What rank 0 of `bevenv-probe --rank` makes of messages a peer sends: fields of the wrong type
// are refused or read as absent, never thrown at rank 0 (found by tests/fuzz/fuzz_rank_messages).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "rank_aggregate.hpp"
#include "rank_messages.hpp"

using namespace bevenv::probe_tool;

TEST_CASE("a hello whose rank or type is not what the protocol says is refused, not thrown") {
  for (const char* text :
       {R"({"type": "hello", "rank": "1", "world_size": 4})", R"({"type": 7, "rank": 1})",
        R"({"type": "hello", "rank": 1.5})", R"({"type": "hello", "rank": 99999999999})"}) {
    const HelloVerdict verdict = read_hello(parse_message(std::string(text)), 4, "10.0.0.2");
    CHECK_FALSE(verdict.rank.has_value());
    CHECK(verdict.problem.find("10.0.0.2") != std::string::npos);
  }
  const HelloVerdict missing =
      read_hello(parse_message(std::string(R"({"type": "hello"})")), 4, "h");
  CHECK(missing.problem == "a process at h sent a hello for rank `-1`, outside 1..3");
  const HelloVerdict odd = read_hello(
      parse_message(std::string(R"({"type": "hello", "rank": 2, "world_size": "four"})")), 4, "h");
  REQUIRE(odd.rank == 2);
  CHECK(odd.warning == "rank 2 at h believes the world has \"four\" ranks, rank 0 believes 4");
}

TEST_CASE("report and go messages with mistyped fields read as absent") {
  CHECK_FALSE(read_report(parse_message(std::string(R"({"type": "report", "report": 3})"))));
  CHECK_FALSE(read_report(parse_message(std::string(R"({"type": ["report"]})"))));
  const auto go = read_go(parse_message(std::string(R"({"type": "go", "nccl_id": 5})")));
  REQUIRE(go.has_value());
  CHECK_FALSE(go->nccl_id.has_value());
  CHECK(go->skip_reason == "rank 0 sent no NCCL id");
}

TEST_CASE("the aggregate takes reports whose fields hold other types") {
  std::vector<RankRecord> ranks(3);
  for (int rank = 0; rank < 3; ++rank) {
    ranks[static_cast<std::size_t>(rank)].rank = rank;
    ranks[static_cast<std::size_t>(rank)].state = "reported";
  }
  // Each of these made json::value() throw type_error in rank_aggregate.cpp.
  ranks[1].report = json::parse(R"({"probe_version": 5, "driver": "none", "lock": [1],
      "python": {"status": 1}, "collective": {"status": ["ok"], "results": [{"busbw_gbps": "x"}]},
      "local_rank": "one", "host": {"env": 3}})");
  ranks[2].report =
      json::parse(R"({"collective": {"status": "ok", "results": [{"busbw_gbps": 1e300}]}})");
  AggregateContext context;
  context.world_size = 3;
  context.min_busbw_gbps = 10.0;
  json aggregate;
  REQUIRE_NOTHROW(aggregate = aggregate_cluster(context, ranks));
  CHECK(aggregate.is_object());
  CHECK_NOTHROW(aggregate.dump(2));
}
