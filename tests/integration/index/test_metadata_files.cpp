// PEP 658 metadata files: checked against the hash the index publishes when they arrive; a
// cached copy is trusted only for the hash it was checked against, so an index that now
// publishes another hash gets the body hashed again (and a mismatch named). Served by Python's
// http.server on loopback (it answers If-Modified-Since with 304); hashlib is the oracle.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bevenv/core/subprocess.hpp"
#include "bevenv/index/client.hpp"
#include "fresh_dir.hpp"
#include "python_oracle.hpp"
#include "servers.hpp"

using namespace bevenv;
namespace fs = std::filesystem;

namespace {

constexpr const char* kMetadata =
    "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: six>=1.10\n"
    "Requires-Dist: attrs; extra == \"docs\"\n\nA description.\n";

core::Expected<index::CoreMetadata, std::string> read(const std::string& base,
                                                      const fs::path& cache,
                                                      const std::string& sha256) {
  index::IndexSettings settings;
  settings.no_index = true;
  settings.transport.cache_dir = cache;
  settings.transport.retries = 0;
  index::IndexClient client(settings);
  auto artifact = index::artifact_from_filename("demo-1.0-py3-none-any.whl",
                                                base + "/demo-1.0-py3-none-any.whl");
  REQUIRE(artifact);
  artifact->has_metadata_file = true;
  artifact->metadata_sha256 = sha256;
  return std::move(client.metadata({*artifact}).at(0));
}

}  // namespace

TEST_CASE("PEP 658 files: hash checked on arrival, cached hash bound to the published one",
          "[index][pep658]") {
  const fs::path work = bevenv::testing::fresh_dir("pep658");
  const fs::path served = work / "served";
  fs::create_directories(served);
  const fs::path file = served / "demo-1.0-py3-none-any.whl.metadata";
  std::ofstream(file, std::ios::binary) << kMetadata;
  const std::string good = test::python_sha256(file);
  const std::string other(64, 'a');

  test::ServerProcess server(test::static_file_server(served.string()), true);
  const std::string base = server.url("");

  // A body that does not hash to the published value is an error naming both hashes, and is
  // not cached: the right hash then reads it fine.
  auto wrong = read(base, work / "cache", other);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().find("sha256 mismatch") != std::string::npos);
  CHECK(wrong.error().find(other) != std::string::npos);
  CHECK(wrong.error().find(good) != std::string::npos);

  auto cold = read(base, work / "cache", good);
  REQUIRE(cold);
  CHECK(cold->name == "demo");
  REQUIRE(cold->requires_dist.size() == 2);
  CHECK(cold->requires_dist[0].to_string() == "six>=1.10");

  // Warm: the copy revalidated (304) is the one checked against `good`.
  auto warm = read(base, work / "cache", good);
  REQUIRE(warm);
  CHECK(warm->requires_dist.size() == 2);

  // The index now publishes another hash for the same URL: the cached body is hashed again.
  auto changed = read(base, work / "cache", other);
  REQUIRE_FALSE(changed);
  CHECK(changed.error().find("sha256 mismatch") != std::string::npos);
}
