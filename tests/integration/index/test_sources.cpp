// Real wheels from PyPI served by pypiserver (PEP 503 and PEP 691), by a plain directory listing
// (a find-links page) and from a local directory; Python reads the same files as the oracle.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <sstream>

#include "bevenv/core/subprocess.hpp"
#include "bevenv/index/client.hpp"
#include "python_oracle.hpp"
#include "servers.hpp"

using namespace bevenv;
namespace fs = std::filesystem;

namespace {

const fs::path kWheels = BEVENV_INDEX_WHEELS;

index::IndexSettings base_settings(const std::string& name) {
  index::IndexSettings s;
  s.transport.cache_dir = fs::temp_directory_path() / ("bevenv-sources-" + name);
  fs::remove_all(s.transport.cache_dir);
  return s;
}

void check_yapf(index::IndexClient& client) {
  auto listed = client.list({"yapf", "not-a-project-here"});
  REQUIRE(listed.at("yapf"));
  CHECK_FALSE(listed.at("not-a-project-here")->source.has_value());
  const auto& artifacts = listed.at("yapf")->artifacts;
  std::set<std::string> versions;
  for (const auto& a : artifacts) versions.insert(a.version.to_string());
  CHECK(versions == std::set<std::string>{"0.40.1", "0.40.2"});
  const auto it = std::find_if(artifacts.begin(), artifacts.end(),
                               [](const auto& a) { return a.version.to_string() == "0.40.1"; });
  const auto expected = test::python_wheel_facts(kWheels / "yapf-0.40.1-py3-none-any.whl");
  auto completed = client.complete({*it});
  REQUIRE(completed[0]);
  CHECK(completed[0]->sha256 == expected[0]);
  CHECK(completed[0]->size == fs::file_size(kWheels / "yapf-0.40.1-py3-none-any.whl"));
  auto metadata = client.metadata({*it});
  REQUIRE(metadata[0]);
  std::vector<std::string> ours;
  for (const auto& r : metadata[0]->requires_dist) ours.push_back(r.to_string());
  CHECK(ours == std::vector<std::string>(expected.begin() + 1, expected.end()));
}

}  // namespace

TEST_CASE("pypiserver: HTML and JSON simple pages, hashes, metadata", "[index][pypiserver]") {
  const int port = test::free_port();
  test::ServerProcess server(
      {"python3", "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", std::to_string(port),
       "--disable-fallback", "-a", ".", "-P", ".", kWheels.string()},
      false, port);
  REQUIRE(test::wait_for_port(port));
  auto settings = base_settings("pypiserver");
  settings.index_url = server.url("/simple/");
  index::IndexClient client(settings);
  check_yapf(client);

  // Warm: pages come back from the cache after revalidation, wheels without a transfer.
  index::IndexClient warm(settings);
  check_yapf(warm);
}

TEST_CASE("find-links: a directory listing page and a local directory", "[index][find-links]") {
  test::ServerProcess server(test::static_file_server(kWheels.string()), true);
  auto page = base_settings("find-links-page");
  page.no_index = true;
  page.find_links = {server.url("/")};
  index::IndexClient from_page(page);
  check_yapf(from_page);

  auto dir = base_settings("find-links-dir");
  dir.no_index = true;
  dir.find_links = {kWheels.string()};
  index::IndexClient from_dir(dir);
  check_yapf(from_dir);
  CHECK(from_dir.transport().network_transfers() == 0);
}

TEST_CASE("a name pinned to a source never comes from another", "[index][pins]") {
  auto settings = base_settings("pins");
  settings.no_index = true;
  const fs::path empty = fs::temp_directory_path() / "bevenv-empty-source";
  fs::create_directories(empty);
  settings.find_links = {kWheels.string()};
  index::IndexClient client(settings);
  // yapf is in the general sources, but pinned to an empty one: it is not found.
  auto listed =
      client.list({"yapf", "six"}, {{"yapf", {index::classify_find_links(empty.string())}}});
  CHECK_FALSE(listed.at("yapf")->source.has_value());
  CHECK(listed.at("six")->source.has_value());
}
