#pragma once
// Where packages come from and how to reach them: flags over pip's environment variables over
// pip's configuration files, as pip itself reads them.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/index/transport.hpp"

namespace bevenv::index {

inline constexpr const char* kPyPI = "https://pypi.org/simple";

enum class SourceKind : std::uint8_t { index, find_links, directory };

struct Source {
  SourceKind kind = SourceKind::index;
  std::string location;  // index or page URL (no trailing `/` for indexes), or a directory
  bool operator==(const Source&) const = default;
};

// pip's options that bevenv honours, as read from its configuration ([global], then [install])
// and its `PIP_*` environment variables.
struct PipConfiguration {
  std::optional<std::string> index_url;
  std::vector<std::string> extra_index_urls;
  std::vector<std::string> find_links;
  bool no_index = false;
  std::string proxy;
  std::string cert;
  std::optional<double> timeout_s;
  std::optional<int> retries;
  std::vector<std::filesystem::path> files_read;  // for `--verbose` reports
};

using EnvironmentLookup = std::function<std::optional<std::string>(const std::string&)>;
// The process environment.
std::optional<std::string> process_environment(const std::string& name);
// pip.conf files (/etc/xdg/pip, /etc, ~/.pip, ~/.config/pip, $VIRTUAL_ENV, PIP_CONFIG_FILE, in
// that order, later wins) then PIP_* variables.
PipConfiguration read_pip_configuration(const EnvironmentLookup& env = process_environment);

struct IndexSettings {
  std::optional<std::string> index_url;  // the default index; PyPI when unset
  std::vector<std::string> extra_index_urls;
  std::vector<std::string> find_links;  // page URLs, file:// URLs or directories
  bool no_index = false;                // neither the default index nor the extra ones
  TransportSettings transport;

  // Flag values over `pip`: fills what the flags left unset, and the transport's proxy, CA
  // bundle, timeout and retries (`REQUESTS_CA_BUNDLE`, `CURL_CA_BUNDLE`, `SSL_CERT_FILE` too).
  // bevenv's own bounds come from `BEVENV_INDEX_DEADLINE`, `BEVENV_DOWNLOAD_DEADLINE`,
  // `BEVENV_PHASE_DEADLINE`, `BEVENV_RETRY_AFTER_MAX` (seconds), `BEVENV_MAX_PAGE_MB`,
  // `BEVENV_MAX_METADATA_MB` (MiB) and `BEVENV_LOW_SPEED_LIMIT` (bytes a second).
  void apply_pip_configuration(const PipConfiguration& pip,
                               const EnvironmentLookup& env = process_environment);

  // Sources in priority order: find-links (pages and directories, as given), then the extra
  // indexes (as given), then the default index. For each package the first source that lists
  // it provides every candidate: a later source cannot shadow it (no dependency confusion).
  std::vector<Source> sources() const;
};

// `https://x/simple/` -> `https://x/simple`; directories and `file://` URLs become directories.
Source classify_index(const std::string& url);
Source classify_find_links(const std::string& location);

}  // namespace bevenv::index
