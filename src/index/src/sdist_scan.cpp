#include "sdist_scan.hpp"

#include <optional>
#include <set>

#include "bevenv/core/libarchive.hpp"
#include "bevenv/util/text.hpp"
#include "metadata_errors.hpp"

namespace bevenv::index {
namespace {

std::string_view trim(std::string_view s) { return util::trim(s, " \t\r"); }

// The header block of an RFC 822 text: up to the first empty line.
std::string_view header_block(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    if (line.empty() || line == "\r") return text.substr(0, pos);  // blanks continue a field
    pos = end + 1;
  }
  return text;
}

bool has_field(std::string_view text, std::string_view field) {
  const std::string headers = util::ascii_lower(header_block(text));
  const std::string key = util::ascii_lower(field) + ":";
  return headers.starts_with(key) || headers.find("\n" + key) != std::string::npos;
}

// `NAME-VERSION/PKG-INFO`, not the copy inside `*.egg-info/`.
bool is_pkg_info(std::string_view path) {
  const auto slash = path.find('/');
  return slash != std::string_view::npos && path.substr(slash) == "/PKG-INFO";
}

bool is_requires_txt(std::string_view path) { return path.ends_with(".egg-info/requires.txt"); }

std::string requirement_line(std::string_view requirement, std::string_view extra,
                             std::string_view marker) {
  std::string markers;
  auto add = [&](std::string_view m) {
    if (m.empty()) return;
    markers += (markers.empty() ? "(" : " and (") + std::string(m) + ")";
  };
  const auto semicolon = requirement.find(';');
  if (semicolon != std::string_view::npos) {
    add(trim(requirement.substr(semicolon + 1)));
    requirement = trim(requirement.substr(0, semicolon));
  }
  add(marker);
  if (!extra.empty()) add("extra == \"" + std::string(extra) + "\"");
  return "Requires-Dist: " + std::string(requirement) + (markers.empty() ? "" : "; " + markers) +
         "\n";
}

}  // namespace

core::Expected<std::string, std::string> read_archive_entry(archive* reader, std::string_view path,
                                                            std::string_view what,
                                                            std::uint64_t limit) {
  const auto& la = core::libarchive::api();
  std::string text;
  char buffer[16384];
  la_ssize_t n = 0;
  while ((n = la.read_data(reader, buffer, sizeof buffer)) > 0) {
    // An archive entry's own size is not to be trusted: count what it inflates to.
    if (text.size() + static_cast<std::size_t>(n) > limit) {
      return core::unexpected("`" + std::string(path) + "` in " + std::string(what) +
                              " is larger than the " + std::to_string(limit >> 20) +
                              " MiB limit for metadata\nhint: `BEVENV_MAX_METADATA_MB` raises "
                              "the limit");
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  if (n < 0) {
    return core::unexpected("cannot read `" + std::string(path) + "` in " + std::string(what) +
                            ": " + la.error_string(reader));
  }
  return text;
}

std::string requires_dist_lines(std::string_view requires_txt) {
  std::string out;
  std::string extra;
  std::string marker;
  std::set<std::string> extras;
  std::size_t pos = 0;
  while (pos < requires_txt.size()) {
    auto end = requires_txt.find('\n', pos);
    if (end == std::string_view::npos) end = requires_txt.size();
    const std::string_view line = trim(requires_txt.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      const std::string_view section = line.substr(1, line.size() - 2);
      const auto colon = section.find(':');
      extra = std::string(trim(section.substr(0, colon)));
      marker = colon == std::string_view::npos ? "" : std::string(trim(section.substr(colon + 1)));
      continue;
    }
    if (!extra.empty() && extras.insert(extra).second) out += "Provides-Extra: " + extra + "\n";
    out += requirement_line(line, extra, marker);
  }
  return out;
}

std::string with_header_lines(std::string_view headers, std::string_view lines) {
  const std::string_view block = header_block(headers);
  std::string out(block);
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += lines;
  out += headers.substr(block.size());
  return out;
}

core::Expected<std::string, std::string> scan_sdist(archive* reader, std::string_view what,
                                                    std::uint64_t limit) {
  const auto& la = core::libarchive::api();
  std::optional<std::string> pkg_info;
  std::optional<std::string> requires_txt;
  archive_entry* entry = nullptr;
  while (la.read_next_header(reader, &entry) == ARCHIVE_OK) {
    const char* raw = la.entry_pathname(entry);
    const std::string_view path = raw != nullptr ? raw : "";
    const bool wanted =
        (!pkg_info && is_pkg_info(path)) || (!requires_txt && is_requires_txt(path));
    if (!wanted) continue;
    auto text = read_archive_entry(reader, path, what, limit);
    if (!text) return text;
    (is_pkg_info(path) ? pkg_info : requires_txt) = std::move(text).value();
    if (pkg_info && (requires_txt || has_field(*pkg_info, "Requires-Dist"))) break;
  }
  if (!pkg_info) {
    const char* error = la.error_string(reader);
    return core::unexpected(std::string(what) + std::string(detail::kNoPkgInfo) +
                            (error != nullptr ? std::string(" (") + error + ")" : std::string()));
  }
  if (requires_txt && !has_field(*pkg_info, "Requires-Dist"))
    return with_header_lines(*pkg_info, requires_dist_lines(*requires_txt));
  return *pkg_info;
}

}  // namespace bevenv::index
