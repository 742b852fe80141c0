// Fuzzes the pip configuration reader (index/settings.cpp): the input is a pip.conf named by
// PIP_CONFIG_FILE (the only variable set), read and applied as `bevenv lock` does. URL lists
// split into words without blanks, values come back trimmed, and the transport's numbers stay
// in range whatever `timeout` and `retries` say.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "bevenv/index/settings.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;
namespace index = bevenv::index;
namespace fs = std::filesystem;

namespace {

const fs::path& config_file() {
  static const fs::path file = bevenv::fuzz::temp_directory("pip") / "pip.conf";
  return file;
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

void check_word(const std::string& word) {
  require(!word.empty(), "an empty word in a URL list");
  for (char c : word) require(!blank(c), "a URL-list word with a blank in it");
}

void check_trimmed(const std::string& value) {
  require(value.empty() || (!blank(value.front()) && !blank(value.back())), "an untrimmed value");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::ofstream(config_file(), std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));  // NOLINT
  const index::EnvironmentLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "PIP_CONFIG_FILE") return config_file().string();
    return std::nullopt;
  };
  const index::PipConfiguration pip = index::read_pip_configuration(env);
  for (const auto& url : pip.extra_index_urls) check_word(url);
  for (const auto& link : pip.find_links) check_word(link);
  if (pip.index_url) check_trimmed(*pip.index_url);
  check_trimmed(pip.proxy);
  check_trimmed(pip.cert);

  index::IndexSettings settings;
  settings.apply_pip_configuration(pip, env);
  const auto& transport = settings.transport;
  require(transport.connect_timeout.count() > 0 && transport.stall_timeout.count() > 0,
          "a timeout that is not positive");
  require(transport.retries >= 0, "a negative retry count");
  for (const auto& source : settings.sources()) {
    require(!source.location.empty() || source.kind == index::SourceKind::directory,
            "a source without a location");
  }
  return 0;
}
