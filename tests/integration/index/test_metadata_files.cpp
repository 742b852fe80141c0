// PEP 658 metadata files: checked against the hash the index publishes when they arrive; a
// cached copy is trusted only for the hash it was checked against, so an index that now
// publishes another hash gets the file fetched and hashed again (and a mismatch named). Cached
// forms that no longer read (index pages' listings, PEP 658 files' metadata) are fetched again.
// Served by Python's http.server on loopback (it answers If-Modified-Since with 304); hashlib is
// the oracle.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bevenv/core/fs.hpp"
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

// The one cache entry in `area`: its validators kept, its parsed form replaced by other bytes.
fs::path damage_the_entry(const fs::path& area) {
  REQUIRE(fs::is_directory(area));
  const fs::path entry = fs::directory_iterator(area)->path();
  std::string text = core::read_file(entry);
  const auto body = text.find("\n\n");
  REQUIRE(body != std::string::npos);
  text.resize(body + 2);
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << text << "damaged";
  return entry;
}

bool ends_damaged(const fs::path& entry) { return core::read_file(entry).ends_with("damaged"); }

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

TEST_CASE("cached forms that no longer read are fetched again", "[index][pep658][forms]") {
  const fs::path work = bevenv::testing::fresh_dir("damaged-forms");
  const fs::path served = work / "served";
  fs::create_directories(served / "simple" / "demo");
  const fs::path file = served / "demo-1.0-py3-none-any.whl.metadata";
  std::ofstream(file, std::ios::binary) << kMetadata;
  std::ofstream(served / "simple" / "demo" / "index.html")
      << "<a href=\"../../demo-1.0-py3-none-any.whl\" data-core-metadata=\"true\">demo</a>\n";
  test::ServerProcess server(test::static_file_server(served.string()), true);
  const std::string base = server.url("");
  const fs::path cache = work / "cache";

  SECTION("a PEP 658 file's metadata") {
    REQUIRE(read(base, cache, test::python_sha256(file)));
    const fs::path entry = damage_the_entry(cache / "core-metadata-v1");
    const auto again = read(base, cache, test::python_sha256(file));
    REQUIRE(again);
    CHECK(again->requires_dist.size() == 2);
    CHECK_FALSE(ends_damaged(entry));  // the form was written anew
  }
  SECTION("an index page's listing") {
    index::IndexSettings settings;
    settings.index_url = base + "/simple";
    settings.transport.cache_dir = cache;
    settings.transport.retries = 0;
    REQUIRE(index::IndexClient(settings).list({"demo"}).at("demo"));
    CHECK_FALSE(fs::exists(cache / "pages-v1"));  // kept as its listing, not as its text
    const fs::path entry = damage_the_entry(cache / "listings-v1");
    index::IndexClient client(settings);
    const auto listed = client.list({"demo"}).at("demo");
    REQUIRE(listed);
    REQUIRE(listed->artifacts.size() == 1);
    CHECK(listed->artifacts[0].has_metadata_file);
    CHECK(client.transport().network_transfers() >= 1);
    CHECK_FALSE(ends_damaged(entry));
  }
}
