#include "bevenv/lockfiles/pins.hpp"

#include <algorithm>

#include "bevenv/core/name.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "content_digest.hpp"

namespace bevenv::lockfiles {
namespace {

constexpr std::string_view kHashLine = "content_hash = \"";

// Whether the `content_hash` line states the digest of the head and the body around it: the
// text is then byte for byte what the writer made (writer.cpp's canonical_parts).
bool holds_its_content_hash(std::string_view text) {
  const auto at = text.find(std::string("\n").append(kHashLine));
  if (at == std::string_view::npos) return false;
  const std::size_t line = at + 1;
  const std::size_t end = text.find('\n', line);
  if (end == std::string_view::npos) return false;
  const std::string_view stated = text.substr(line, end - line);
  return stated == std::string(kHashLine) +
                       detail::content_digest(text.substr(0, line), text.substr(end + 1)) + "\"";
}

// `key = "value"` as the writer writes a string with nothing to escape; nullopt otherwise.
std::optional<std::string_view> string_value(std::string_view line, std::string_view key) {
  if (!line.starts_with(key) || line.substr(key.size(), 4) != " = \"") return std::nullopt;
  const std::string_view value = line.substr(key.size() + 4);
  if (!value.ends_with('"')) return std::nullopt;
  const std::string_view inner = value.substr(0, value.size() - 1);
  if (inner.find_first_of("\"\\") != std::string_view::npos) return std::nullopt;
  return inner;
}

// `gpus = ["sm_86", "sm_90"]` on one line.
std::optional<std::vector<std::string>> one_line_strings(std::string_view line,
                                                         std::string_view key) {
  if (!line.starts_with(key) || line.substr(key.size(), 4) != " = [" || !line.ends_with(']'))
    return std::nullopt;
  std::string_view rest = line.substr(key.size() + 4, line.size() - key.size() - 5);
  std::vector<std::string> out;
  while (!rest.empty()) {
    if (rest.front() != '"') return std::nullopt;
    const auto close = rest.find('"', 1);
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view item = rest.substr(1, close - 1);
    if (item.find('\\') != std::string_view::npos) return std::nullopt;
    out.emplace_back(item);
    rest.remove_prefix(close + 1);
    if (rest.starts_with(", "))
      rest.remove_prefix(2);
    else if (!rest.empty())
      return std::nullopt;
  }
  return out;
}

enum class Section { top, target, package, other };

class PinScanner {
 public:
  // False when a line of a section read here is not in the writer's layout.
  bool line(std::string_view text) {
    if (text.starts_with('[')) return header(text);
    switch (section_) {
      case Section::top:
        return top(text);
      case Section::target:
        return target(text);
      case Section::package:
        return package(text);
      case Section::other:
        return true;
    }
    return false;
  }
  bool complete() const {
    return saw_schema_ && !out_.target.python.empty() && !out_.target.platform.empty() &&
           std::all_of(out_.pins.begin(), out_.pins.end(),
                       [](const Pin& p) { return !p.name.empty() && !p.version.empty(); });
  }
  PinnedLock take() { return std::move(out_); }

 private:
  bool header(std::string_view text) {
    if (text == "[[package]]") {
      out_.pins.emplace_back();
      section_ = Section::package;
    } else {
      section_ = text == "[target]" ? Section::target : Section::other;
    }
    return true;
  }
  bool top(std::string_view text) {
    if (text == "schema_version = " + std::to_string(kSchemaVersion)) saw_schema_ = true;
    if (auto v = string_value(text, "profile")) out_.profile = *v;
    return true;
  }
  bool target(std::string_view text) {
    Target& t = out_.target;
    for (auto [key, field] : {std::pair{"python", &t.python},
                              {"platform", &t.platform},
                              {"glibc", &t.glibc},
                              {"cuda_driver", &t.cuda_driver}}) {
      if (auto v = string_value(text, key)) {
        *field = *v;
        return true;
      }
    }
    if (auto gpus = one_line_strings(text, "gpus")) {
      t.gpus = std::move(*gpus);
      return true;
    }
    return text.empty();
  }
  bool package(std::string_view text) {
    Pin& pin = out_.pins.back();
    for (auto [key, field] :
         {std::pair{"name", &pin.name}, {"version", &pin.version}, {"variant", &pin.variant}}) {
      if (auto v = string_value(text, key)) {
        *field = *v;
        return true;
      }
    }
    // The keys before the first of name, version and variant would be an unknown layout.
    return !text.starts_with("name") && !text.starts_with("version") &&
           !text.starts_with("variant");
  }

  Section section_ = Section::top;
  bool saw_schema_ = false;
  PinnedLock out_;
};

}  // namespace

const Pin* PinnedLock::find(std::string_view name) const {
  const std::string wanted = core::normalize_name(name);
  for (const Pin& p : pins) {
    if (core::normalize_name(p.name) == wanted) return &p;
  }
  return nullptr;
}

PinnedLock pins_of(const Lockfile& lock) {
  PinnedLock out{lock.profile, lock.target, {}};
  out.pins.reserve(lock.packages.size());
  for (const Package& p : lock.packages) out.pins.push_back({p.name, p.version, p.variant});
  return out;
}

std::optional<PinnedLock> scan_written_pins(std::string_view text) {
  if (!holds_its_content_hash(text)) return std::nullopt;
  PinScanner scanner;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    if (!scanner.line(text.substr(pos, end - pos))) return std::nullopt;
    pos = end + 1;
  }
  if (!scanner.complete()) return std::nullopt;
  return scanner.take();
}

PinnedLock read_pins(const std::filesystem::path& path) {
  const std::string text = read_lockfile_text(path);
  if (auto scanned = scan_written_pins(text)) return std::move(*scanned);
  return pins_of(parse_lockfile_or_throw(text, path));
}

}  // namespace bevenv::lockfiles
