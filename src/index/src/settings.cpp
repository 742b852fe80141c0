#include "bevenv/index/settings.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bevenv/util/text.hpp"

namespace bevenv::index {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  std::string word;
  while (in >> word) out.push_back(word);
  return out;
}

bool truthy(std::string_view value) {
  const std::string v = std::string(util::trim(value));
  return v == "1" || v == "true" || v == "yes" || v == "on" || v == "True";
}

// An INI file as pip's configparser reads it: `[section]`, `key = value`, indented continuation
// lines append to the value (lists of URLs are written that way).
std::map<std::string, std::map<std::string, std::string>> read_ini(const fs::path& path) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::ifstream in(path);
  std::string line;
  std::string section;
  std::string* last = nullptr;
  while (std::getline(in, line)) {
    const std::string t = std::string(util::trim(line));
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      section = std::string(util::trim(std::string_view(t).substr(1, t.size() - 2)));
      last = nullptr;
      continue;
    }
    if ((line[0] == ' ' || line[0] == '\t') && last != nullptr) {
      *last += "\n" + t;
      continue;
    }
    const auto eq = t.find_first_of("=:");
    if (eq == std::string::npos) continue;
    std::string key = std::string(util::trim(std::string_view(t).substr(0, eq)));
    for (char& c : key) {
      if (c == '_') c = '-';
    }
    last = &(out[section][key] = std::string(util::trim(std::string_view(t).substr(eq + 1))));
  }
  return out;
}

void apply_option(PipConfiguration& config, const std::string& key, const std::string& value) {
  // An empty `index-url =` leaves the default in place rather than naming the current directory.
  if (key == "index-url") {
    std::string url = std::string(util::trim(value));
    if (url.empty()) return;
    config.index_url = std::move(url);
  }
  if (key == "extra-index-url") config.extra_index_urls = words(value);
  if (key == "find-links") config.find_links = words(value);
  if (key == "no-index") config.no_index = truthy(value);
  if (key == "proxy") config.proxy = std::string(util::trim(value));
  if (key == "cert") config.cert = std::string(util::trim(value));
  if (key == "timeout") config.timeout_s = std::strtod(value.c_str(), nullptr);
  if (key == "retries") config.retries = std::atoi(value.c_str());
}

// A positive number from the environment; nullopt when unset or not one.
std::optional<double> positive_number(const EnvironmentLookup& env, const char* variable) {
  const auto value = env(variable);
  if (!value) return std::nullopt;
  char* end = nullptr;
  const double number = std::strtod(value->c_str(), &end);
  if (end == value->c_str() || *end != '\0' || !(number > 0) || number > 1e9) return std::nullopt;
  return number;
}

std::chrono::milliseconds milliseconds_of(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
}

// bevenv's own bounds, which pip has no options for: deadlines in seconds, sizes in MiB.
void apply_bevenv_limits(TransportSettings& transport, const EnvironmentLookup& env) {
  if (const auto s = positive_number(env, "BEVENV_INDEX_DEADLINE"))
    transport.page_deadline = milliseconds_of(*s);
  if (const auto s = positive_number(env, "BEVENV_DOWNLOAD_DEADLINE"))
    transport.download_deadline = milliseconds_of(*s);
  if (const auto s = positive_number(env, "BEVENV_PHASE_DEADLINE"))
    transport.phase_deadline = milliseconds_of(*s);
  if (const auto s = positive_number(env, "BEVENV_RETRY_AFTER_MAX"))
    transport.retry_after_cap = milliseconds_of(*s);
  if (const auto mib = positive_number(env, "BEVENV_MAX_PAGE_MB"))
    transport.max_page_size = static_cast<std::uint64_t>(*mib * 1048576.0);
  if (const auto mib = positive_number(env, "BEVENV_MAX_METADATA_MB"))
    transport.max_metadata_size = static_cast<std::uint64_t>(*mib * 1048576.0);
  if (const auto rate = positive_number(env, "BEVENV_LOW_SPEED_LIMIT"))
    transport.low_speed_limit = static_cast<std::uint32_t>(std::min(*rate, 1e9));
}

}  // namespace

// Not util::env: pip reads an empty `PIP_*` value as given (empty), not as unset.
std::optional<std::string> process_environment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

PipConfiguration read_pip_configuration(const EnvironmentLookup& env) {
  PipConfiguration config;
  std::vector<fs::path> files = {"/etc/xdg/pip/pip.conf", "/etc/pip.conf"};
  if (const auto home = env("HOME")) {
    files.push_back(fs::path(*home) / ".pip" / "pip.conf");
    const auto xdg = env("XDG_CONFIG_HOME");
    files.push_back((xdg && !xdg->empty() ? fs::path(*xdg) : fs::path(*home) / ".config") / "pip" /
                    "pip.conf");
  }
  if (const auto venv = env("VIRTUAL_ENV")) files.push_back(fs::path(*venv) / "pip.conf");
  const auto explicit_file = env("PIP_CONFIG_FILE");
  if (explicit_file && *explicit_file == "/dev/null") files.clear();
  if (explicit_file && *explicit_file != "/dev/null") files.push_back(*explicit_file);
  for (const auto& file : files) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    config.files_read.push_back(file);
    const auto ini = read_ini(file);
    for (const char* section : {"global", "install"}) {
      const auto it = ini.find(section);
      if (it == ini.end()) continue;
      for (const auto& [key, value] : it->second) apply_option(config, key, value);
    }
  }
  for (const char* key : {"index-url", "extra-index-url", "find-links", "no-index", "proxy", "cert",
                          "timeout", "retries"}) {
    std::string var = "PIP_";
    for (const char* c = key; *c != '\0'; ++c) {
      var += *c == '-' ? '_' : static_cast<char>(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
    }
    if (const auto value = env(var)) apply_option(config, key, *value);
  }
  return config;
}

void IndexSettings::apply_pip_configuration(const PipConfiguration& pip,
                                            const EnvironmentLookup& env) {
  if (!index_url) index_url = pip.index_url;
  if (extra_index_urls.empty()) extra_index_urls = pip.extra_index_urls;
  if (find_links.empty()) find_links = pip.find_links;
  no_index = no_index || pip.no_index;
  if (transport.proxy.empty()) transport.proxy = pip.proxy;
  if (transport.ca_bundle.empty()) {
    transport.ca_bundle = pip.cert;
    for (const char* var : {"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"}) {
      if (!transport.ca_bundle.empty()) break;
      if (const auto value = env(var)) transport.ca_bundle = *value;
    }
  }
  // `timeout` is any number strtod reads: `inf` or `1e300` would overflow the conversion to
  // milliseconds (undefined), and one below a millisecond would become 0, libcurl's "no limit".
  if (pip.timeout_s && *pip.timeout_s > 0 && *pip.timeout_s <= 1e9) {
    const auto ms = std::chrono::milliseconds(
        std::max<std::int64_t>(1, static_cast<std::int64_t>(*pip.timeout_s * 1000.0)));
    transport.connect_timeout = ms;
    transport.stall_timeout = ms;
  }
  if (pip.retries && *pip.retries >= 0) transport.retries = *pip.retries;
  apply_bevenv_limits(transport, env);
}

Source classify_index(const std::string& url) {
  if (url.find("://") == std::string::npos || url.starts_with("file://")) {
    return classify_find_links(url);
  }
  std::string location = url;
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  return {SourceKind::index, location};
}

Source classify_find_links(const std::string& location) {
  if (location.starts_with("file://")) {
    const std::string path = location.substr(7);
    std::error_code ec;
    if (fs::is_directory(path, ec)) return {SourceKind::directory, path};
    return {SourceKind::find_links, location};
  }
  if (location.find("://") == std::string::npos) {
    // The error_code form: an empty path makes the throwing one raise, and the location comes
    // from a configuration file.
    std::error_code ec;
    const fs::path absolute = fs::absolute(location, ec);
    return {SourceKind::directory, ec ? location : absolute.lexically_normal().string()};
  }
  return {SourceKind::find_links, location};
}

std::vector<Source> IndexSettings::sources() const {
  std::vector<Source> out;
  for (const auto& link : find_links) out.push_back(classify_find_links(link));
  if (!no_index) {
    for (const auto& url : extra_index_urls) out.push_back(classify_index(url));
    out.push_back(classify_index(index_url.value_or(kPyPI)));
  }
  return out;
}

}  // namespace bevenv::index
