// Core metadata and pip configuration.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bevenv/index/metadata.hpp"
#include "bevenv/index/settings.hpp"

using namespace bevenv;

TEST_CASE("core metadata headers", "[index][metadata]") {
  const std::string text =
      "Metadata-Version: 2.1\nName: yapf\nVersion: 0.40.1\nRequires-Python: >=3.7\n"
      "Requires-Dist: importlib-metadata (>=6.6.0)\nRequires-Dist: tomli>=2.0.1; python_version "
      "< \"3.11\"\nProvides-Extra: Test_Extra\nDescription: first\n   continued\n\nBody: not a "
      "header\nRequires-Dist: nope\n";
  const auto m = index::parse_core_metadata(text);
  REQUIRE(m);
  CHECK(m->name == "yapf");
  CHECK(m->version.to_string() == "0.40.1");
  CHECK(m->requires_python.to_string() == ">=3.7");
  REQUIRE(m->requires_dist.size() == 2);
  CHECK(m->requires_dist[0].to_string() == "importlib-metadata>=6.6.0");
  CHECK(m->requires_dist[1].marker.to_string() == "python_version < \"3.11\"");
  CHECK(m->provides_extra == std::vector<std::string>{"test-extra"});

  const auto bad = index::parse_core_metadata("Name: x\nVersion: 1\nRequires-Dist: foo>=\n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("Requires-Dist: foo>=") != std::string::npos);
  CHECK_FALSE(index::parse_core_metadata("Version: 1\n"));
}

TEST_CASE("pip configuration: files, then PIP_* variables", "[index][settings]") {
  const auto dir = std::filesystem::temp_directory_path() / "bevenv-test-pipconf";
  std::filesystem::create_directories(dir / ".config" / "pip");
  {
    std::ofstream conf(dir / ".config" / "pip" / "pip.conf");
    conf << "[global]\nindex-url = http://mirror.example/simple\n"
            "extra-index-url =\n    http://one.example/simple\n    http://two.example/simple\n"
            "timeout = 7\n[install]\nfind-links = /opt/wheels\n";
  }
  std::map<std::string, std::string> vars = {{"HOME", dir.string()},
                                             {"PIP_CONFIG_FILE", (dir / "none.conf").string()},
                                             {"PIP_RETRIES", "2"},
                                             {"PIP_CERT", "/etc/ca.pem"}};
  const index::EnvironmentLookup env = [&](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  const auto pip = index::read_pip_configuration(env);
  CHECK(pip.index_url == "http://mirror.example/simple");
  CHECK(pip.extra_index_urls ==
        std::vector<std::string>{"http://one.example/simple", "http://two.example/simple"});
  CHECK(pip.find_links == std::vector<std::string>{"/opt/wheels"});

  vars["PIP_INDEX_URL"] = "http://env.example/simple/";
  index::IndexSettings settings;
  settings.extra_index_urls = {"http://flag.example/simple"};
  settings.apply_pip_configuration(index::read_pip_configuration(env), env);
  CHECK(settings.index_url == "http://env.example/simple/");
  CHECK(settings.transport.retries == 2);
  CHECK(settings.transport.stall_timeout == std::chrono::milliseconds(7000));
  CHECK(settings.transport.ca_bundle == "/etc/ca.pem");

  // Priority: find-links, then extra indexes, then the default index.
  const auto sources = settings.sources();
  REQUIRE(sources.size() == 3);
  CHECK(sources[0].kind == index::SourceKind::directory);
  CHECK(sources[1].location == "http://flag.example/simple");
  CHECK(sources[2].location == "http://env.example/simple");
  settings.no_index = true;
  CHECK(settings.sources().size() == 1);
  std::filesystem::remove_all(dir);
}

// Found by tests/fuzz/fuzz_pip_conf.
TEST_CASE("pip configuration: a value on a continuation line, and timeouts out of range",
          "[index][settings]") {
  const auto dir = std::filesystem::temp_directory_path() / "bevenv-test-pipconf-odd";
  std::filesystem::create_directories(dir);
  std::string timeout;
  const index::EnvironmentLookup env = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "PIP_CONFIG_FILE") return (dir / "pip.conf").string();
    if (name == "PIP_TIMEOUT" && !timeout.empty()) return timeout;
    return std::nullopt;
  };
  std::ofstream(dir / "pip.conf") << "[global]\nindex-url =\n    http://mirror.example/simple\n"
                                     "cert =\n  /etc/ca.pem\n";
  const auto pip = index::read_pip_configuration(env);
  CHECK(pip.index_url == "http://mirror.example/simple");
  CHECK(pip.cert == "/etc/ca.pem");
  for (const char* text : {"inf", "1e300", "nan", "0.0000001"}) {
    timeout = text;
    index::IndexSettings settings;
    settings.apply_pip_configuration(index::read_pip_configuration(env), env);
    CHECK(settings.transport.connect_timeout.count() > 0);
    CHECK(settings.transport.stall_timeout.count() > 0);
  }
  std::filesystem::remove_all(dir);
}

// Found by tests/fuzz/fuzz_pip_conf in CI: an empty `index-url` reached std::filesystem::absolute,
// which throws on an empty path.
TEST_CASE("pip configuration: an empty index-url keeps PyPI, an empty find-links entry is no crash",
          "[index][settings]") {
  const auto dir = std::filesystem::temp_directory_path() / "bevenv-test-pipconf-empty";
  std::filesystem::create_directories(dir);
  const index::EnvironmentLookup env = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "PIP_CONFIG_FILE") return (dir / "pip.conf").string();
    return std::nullopt;
  };
  std::ofstream(dir / "pip.conf") << "[global]\nindex-url =\n";
  index::IndexSettings settings;
  settings.apply_pip_configuration(index::read_pip_configuration(env), env);
  const auto sources = settings.sources();
  REQUIRE(sources.size() == 1);
  CHECK(sources[0].kind == index::SourceKind::index);
  CHECK(sources[0].location.find("pypi.org") != std::string::npos);
  CHECK(index::classify_find_links("").kind == index::SourceKind::directory);
  std::filesystem::remove_all(dir);
}

TEST_CASE("bevenv's own bounds come from BEVENV_* variables", "[index][settings]") {
  std::map<std::string, std::string> vars = {
      {"PIP_CONFIG_FILE", "/dev/null"},   {"BEVENV_INDEX_DEADLINE", "2.5"},
      {"BEVENV_DOWNLOAD_DEADLINE", "90"}, {"BEVENV_PHASE_DEADLINE", "600"},
      {"BEVENV_RETRY_AFTER_MAX", "5"},    {"BEVENV_MAX_PAGE_MB", "1"},
      {"BEVENV_MAX_METADATA_MB", "0.5"},  {"BEVENV_LOW_SPEED_LIMIT", "100"}};
  const index::EnvironmentLookup env = [&](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  index::IndexSettings settings;
  settings.apply_pip_configuration(index::read_pip_configuration(env), env);
  CHECK(settings.transport.page_deadline == std::chrono::milliseconds(2500));
  CHECK(settings.transport.download_deadline == std::chrono::seconds(90));
  CHECK(settings.transport.phase_deadline == std::chrono::seconds(600));
  CHECK(settings.transport.retry_after_cap == std::chrono::seconds(5));
  CHECK(settings.transport.max_page_size == 1048576u);
  CHECK(settings.transport.max_metadata_size == 524288u);
  CHECK(settings.transport.low_speed_limit == 100u);

  // Values that are not positive numbers leave the defaults.
  const index::TransportSettings defaults;
  vars = {{"PIP_CONFIG_FILE", "/dev/null"},
          {"BEVENV_INDEX_DEADLINE", "-1"},
          {"BEVENV_MAX_PAGE_MB", "lots"},
          {"BEVENV_PHASE_DEADLINE", "nan"}};
  index::IndexSettings other;
  other.apply_pip_configuration(index::read_pip_configuration(env), env);
  CHECK(other.transport.page_deadline == defaults.page_deadline);
  CHECK(other.transport.max_page_size == defaults.max_page_size);
  CHECK(other.transport.phase_deadline == defaults.phase_deadline);
}
