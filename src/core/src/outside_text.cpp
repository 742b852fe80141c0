#include "bevenv/core/outside_text.hpp"

#include <algorithm>
#include <array>

namespace bevenv::core {
namespace {

constexpr std::size_t kMaxUrl = 4096;
constexpr std::size_t kMaxFilename = 255;

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// RFC 3986 section 2: unreserved, gen-delims, sub-delims, and `%` of percent-encoding.
bool is_uri_char(char c) {
  return is_alnum(c) ||
         std::string_view("-._~:/?#[]@!$&'()*+,;=%").find(c) != std::string_view::npos;
}

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

}  // namespace

bool is_remote_url(std::string_view url) {
  return starts_with_ci(url, "http://") || starts_with_ci(url, "https://");
}

bool is_url_text(std::string_view url) {
  if (url.empty() || url.size() > kMaxUrl) return false;
  if (!is_remote_url(url) && !starts_with_ci(url, "file://")) return false;
  return std::all_of(url.begin(), url.end(), is_uri_char);
}

bool is_artifact_filename(std::string_view filename) {
  if (filename.empty() || filename.size() > kMaxFilename || filename.front() == '.') return false;
  const bool charset = std::all_of(filename.begin(), filename.end(), [](char c) {
    return is_alnum(c) || c == '.' || c == '_' || c == '+' || c == '!' || c == '-';
  });
  if (!charset) return false;
  constexpr std::array<std::string_view, 5> kExtensions = {".whl", ".tar.gz", ".tgz", ".zip",
                                                           ".tar.bz2"};
  return std::any_of(kExtensions.begin(), kExtensions.end(), [&](std::string_view ext) {
    return filename.size() > ext.size() && filename.ends_with(ext);
  });
}

bool is_vcs_pin(std::string_view text) {
  constexpr std::string_view kPrefix = "git+https://";
  if (!text.starts_with(kPrefix) || !is_url_text(text.substr(4))) return false;
  const auto at = text.rfind('@');
  if (at == std::string_view::npos || at < kPrefix.size()) return false;
  const std::string_view commit = text.substr(at + 1);
  return commit.size() == 40 && std::all_of(commit.begin(), commit.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_sha256_hex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace bevenv::core
