// Every fault of the loopback fault server ends in the right result after retries, or in a
// clear error; the cache never keeps a partial or unverified file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "bevenv/index/client.hpp"
#include "fault_helpers.hpp"
#include "servers.hpp"

using namespace bevenv;
using namespace bevenv::test;
namespace fs = std::filesystem;

namespace {

struct Outcome {
  bool listed = false;
  bool downloaded = false;
  std::string error;
};

// Lists `six` from the fault prefix and downloads its wheel.
Outcome run(const test::ServerProcess& server, const std::string& fault, const fs::path& cache) {
  index::IndexClient client(settings_for(server.url("/" + fault + "/simple"), cache));
  Outcome out;
  auto listed = client.list({"six"});
  auto& listing = listed.at("six");
  if (!listing) {
    out.error = listing.error();
    return out;
  }
  if (listing->artifacts.empty()) {
    out.error = "not listed";
    return out;
  }
  out.listed = true;
  auto done = client.complete({listing->artifacts.front()});
  auto files = client.transport().download(
      {{listing->artifacts.front().url, listing->artifacts.front().filename,
        listing->artifacts.front().sha256}});
  if (!files[0]) {
    out.error = files[0].error();
    return out;
  }
  out.downloaded = done[0].has_value();
  return out;
}

// A fault that lasts past the retries: the section, the server's fault prefix, the error's words.
struct Lasting {
  std::string name;
  std::string fault;
  std::string reason;
};

}  // namespace

TEST_CASE("transport faults end in a result or a clear error", "[index][faults]") {
  const test::ServerProcess server = fault_server();

  SECTION("healthy") {
    const auto cache = fresh_cache("ok");
    const auto out = run(server, "ok", cache);
    CHECK(out.error.empty());
    CHECK(out.downloaded);
    CHECK(count_files(cache / "files-v2") == 1);
  }
  for (const std::string fault : {"drop-once", "500-once", "stall-once", "truncated-once"}) {
    SECTION("recovers from " + fault) {
      const auto cache = fresh_cache(fault);
      const auto out = run(server, fault, cache);
      INFO(out.error);
      CHECK(out.downloaded);
      CHECK(count_files(cache / "tmp") == 0);
      CHECK(count_files(cache / "files-v2") == 1);
    }
  }
  // Faults the retries do not outlast: the listing fails with the reason, and nothing is cached
  // (a malformed page included).
  const std::vector<Lasting> lasting = {
      {"HTTP 500 on every attempt", "500", "HTTP 500 after 3 attempts"},
      {"a server that stalls", "stall", "timed out"},
      {"a body cut short on every attempt", "truncated", "after 3 attempts"},
      {"truncated JSON served whole", "bad-json", "is malformed: the page is not valid JSON"},
  };
  for (const auto& [name, fault, reason] : lasting) {
    SECTION(name) {
      const auto cache = fresh_cache(fault);
      const auto out = run(server, fault, cache);
      CHECK_FALSE(out.listed);
      CHECK(out.error.find(reason) != std::string::npos);
      CHECK(count_files(cache) == 0);
    }
  }
  SECTION("404: the index does not have the project") {
    const auto cache = fresh_cache("404");
    const auto out = run(server, "404", cache);
    CHECK(out.error == "not listed");
  }
  SECTION("wrong bytes: a hash mismatch names URL, expected and actual hash") {
    const auto cache = fresh_cache("wrong-bytes");
    const auto out = run(server, "wrong-bytes", cache);
    CHECK(out.listed);
    CHECK_FALSE(out.downloaded);
    CHECK(out.error.find("sha256 mismatch for `" + server.url("/wrong-bytes/files/")) !=
          std::string::npos);
    CHECK(out.error.find(
              "expected 8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254, got ") !=
          std::string::npos);
    CHECK(count_files(cache / "tmp") == 0);
    CHECK(count_files(cache / "files-v2") == 0);
  }
  SECTION("offline: a cache miss is an error, a hit needs no network") {
    const auto cache = fresh_cache("offline");
    auto s = settings_for(server.url("/ok/simple"), cache);
    s.transport.offline = true;
    index::IndexClient offline(s);
    auto miss = offline.list({"six"});
    REQUIRE_FALSE(miss.at("six"));
    CHECK(miss.at("six").error().find("--offline") != std::string::npos);
    REQUIRE(run(server, "ok", cache).downloaded);
    index::IndexClient again(s);
    auto hit = again.list({"six"});
    REQUIRE(hit.at("six"));
    CHECK(again.transport().network_transfers() == 0);
  }
}
