#include "source_ref.hpp"

#include <algorithm>

#include "bevenv/core/outside_text.hpp"

namespace bevenv::matrix::detail {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A GitHub account: 1 to 39 letters, digits and `-`, not starting or ending with `-`.
bool is_owner(std::string_view text) {
  if (text.empty() || text.size() > 39 || text.front() == '-' || text.back() == '-') return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return is_alnum(c) || c == '-'; });
}

// A repository name: 1 to 100 letters, digits and `._-`, not `.` or `..`.
bool is_repo(std::string_view text) {
  if (text.empty() || text.size() > 100 || text == "." || text == "..") return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_alnum(c) || c == '.' || c == '_' || c == '-'; });
}

// `owner/repo` at the start of `text`; returns its length, or 0.
std::size_t repo_prefix(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos || !is_owner(text.substr(0, slash))) return 0;
  const auto end = text.find_first_of("#@", slash + 1);
  if (end == std::string_view::npos || !is_repo(text.substr(slash + 1, end - slash - 1))) return 0;
  return end;
}

bool has_dot_dot_segment(std::string_view text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto slash = text.find('/', start);
    const auto end = slash == std::string_view::npos ? text.size() : slash;
    if (text.substr(start, end - start) == "..") return true;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return false;
}

// A branch, tag or commit: letters, digits and `._/+-`, not starting with `-` or `/`, no `..`.
bool is_ref(std::string_view text) {
  if (text.empty() || text.size() > 255 || text.front() == '-' || text.front() == '/') return false;
  if (text.find("..") != std::string_view::npos) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return is_alnum(c) || c == '.' || c == '_' || c == '/' || c == '+' || c == '-';
  });
}

// A relative path inside the repository: printable ASCII without spaces, quotes, backslashes
// or backticks, not starting with `/`, no `..` segment.
bool is_repo_path(std::string_view text) {
  if (text.empty() || text.size() > 1024 || text.front() == '/') return false;
  const bool charset = std::all_of(text.begin(), text.end(), [](char c) {
    return c > ' ' && c < 0x7f && c != '"' && c != '\'' && c != '\\' && c != '`';
  });
  return charset && !has_dot_dot_segment(text);
}

bool is_issue_number(std::string_view text) {
  return !text.empty() && text.size() <= 10 && text.front() != '0' &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_source_url(std::string_view text) {
  if (!core::is_remote_url(text) || !core::is_url_text(text)) return false;
  const auto host = text.substr(text.find("://") + 3);
  return !host.empty() && host.front() != '/';
}

}  // namespace

bool is_source_ref(std::string_view text) {
  if (is_source_url(text)) return true;
  const std::size_t prefix = repo_prefix(text);
  if (prefix == 0) return false;
  const std::string_view rest = text.substr(prefix + 1);
  if (text[prefix] == '#') return is_issue_number(rest);
  const auto colon = rest.find(':');
  return colon != std::string_view::npos && is_ref(rest.substr(0, colon)) &&
         is_repo_path(rest.substr(colon + 1));
}

void check_sources(TableReader& reader, std::string_view key, std::string_view record) {
  const toml::array* array = reader.table()[key].as_array();
  if (array == nullptr) return;  // a wrong type is reported where the key is read
  for (const toml::node& item : *array) {
    const auto* text = item.as_string();
    if (text == nullptr || is_source_ref(text->get())) continue;
    std::string message = "`" + reader.context() + "." + std::string(key) + "`";
    if (!record.empty()) message += " of `" + std::string(record) + "`";
    message +=
        ": `" + text->get() + "` is not an upstream source; expected " + std::string(kSourceForms);
    reader.file_error(item.source().begin, std::move(message));
  }
}

std::optional<std::vector<std::string>> read_sources(TableReader& reader, std::string_view record) {
  auto sources = reader.strings("sources", true);
  if (sources && sources->empty()) {
    reader.file_error(reader.position("sources"),
                      "`" + reader.context() + ".sources`: needs at least one source");
  }
  if (sources) check_sources(reader, "sources", record);
  return sources;
}

}  // namespace bevenv::matrix::detail
