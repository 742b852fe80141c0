#include <string>
#include <vector>

#include "bevenv/core/outside_text.hpp"
#include "bevenv/index/project.hpp"

namespace bevenv::index {
namespace {

// Applies `..` and `.` segments of an absolute path.
std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto slash = path.find('/', start);
    const auto segment = path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (segment == "..") {
      if (out.size() > 1) out.pop_back();
    } else if (segment != ".") {
      out.push_back(segment);
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::string joined;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0) joined += '/';
    joined += out[i];
  }
  // A trailing `.` or `..` names a directory.
  if (path.ends_with("/.") || path.ends_with("/..")) joined += '/';
  return joined;
}

}  // namespace

std::string resolve_url(std::string_view base, std::string_view href) {
  if (href.find("://") != std::string_view::npos) {
    const auto colon = href.find(':');
    const auto first_slash = href.find('/');
    if (colon < first_slash) return std::string(href);
  }
  const auto scheme_end = base.find("://");
  if (scheme_end == std::string_view::npos) return std::string(href);
  const std::string_view scheme = base.substr(0, scheme_end);
  if (href.starts_with("//")) return std::string(scheme) + ":" + std::string(href);
  const auto path_start = base.find('/', scheme_end + 3);
  const std::string_view authority = base.substr(0, path_start);
  std::string_view base_path =
      path_start == std::string_view::npos ? std::string_view("/") : base.substr(path_start);
  if (const auto cut = base_path.find_first_of("?#"); cut != std::string_view::npos) {
    base_path = base_path.substr(0, cut);
  }
  if (href.starts_with("/")) {
    const auto cut = href.find_first_of("?#");
    std::string path = remove_dot_segments(href.substr(0, cut));
    return std::string(authority) + path +
           (cut == std::string_view::npos ? std::string() : std::string(href.substr(cut)));
  }
  const std::string_view directory = base_path.substr(0, base_path.rfind('/') + 1);
  const auto cut = href.find_first_of("?#");
  const std::string path =
      remove_dot_segments(std::string(directory) + std::string(href.substr(0, cut)));
  return std::string(authority) + path +
         (cut == std::string_view::npos ? std::string() : std::string(href.substr(cut)));
}

bool is_allowed_link(std::string_view page_url, std::string_view link) {
  if (!core::is_url_text(link)) return false;
  return !core::is_remote_url(page_url) || core::is_remote_url(link);
}

}  // namespace bevenv::index
