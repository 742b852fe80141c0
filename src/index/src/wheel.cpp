#include "bevenv/index/wheel.hpp"

#include <algorithm>
#include <unordered_map>

#include "bevenv/core/name.hpp"
#include "bevenv/core/outside_text.hpp"
#include "bevenv/util/text.hpp"

namespace bevenv::index {
namespace {

// Views into `text`: a wheel name is parsed for every file of every release a lock considers,
// so its parts are not copied until they are kept.
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// PEP 425 tags and PEP 427 build tags: letters, digits and `_` (a build tag may hold `.`).
bool is_tag_text(std::string_view text, bool dots) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (dots && c == '.');
  });
}

std::uint64_t minor_of(const core::Version& v) {
  return v.release().size() > 1 ? v.release()[1] : 0;
}
std::uint64_t major_of(const core::Version& v) { return v.release().empty() ? 0 : v.release()[0]; }

// manylinux tags from the target's glibc down to the oldest one the architecture supports,
// with the legacy aliases after their PEP 600 spelling, then the plain `linux_<arch>` tag.
std::vector<std::string> linux_platforms(const TargetTags& target) {
  std::vector<std::string> out;
  const std::string& arch = target.machine;
  const bool x86 = arch == "x86_64" || arch == "i686";
  const std::uint64_t oldest = x86 ? 5 : 17;
  if (major_of(target.glibc) == 2) {
    for (std::uint64_t minor = minor_of(target.glibc); minor >= oldest; --minor) {
      out.push_back("manylinux_2_" + std::to_string(minor) + "_" + arch);
      if (minor == 17) out.push_back("manylinux2014_" + arch);
      if (minor == 12) out.push_back("manylinux2010_" + arch);
      if (minor == 5) out.push_back("manylinux1_" + arch);
    }
  }
  out.push_back("linux_" + arch);
  return out;
}

}  // namespace

std::optional<WheelName> parse_wheel_filename(std::string_view filename) {
  // The whole name first: a served name is later a path component and a shell word.
  if (!ends_with(filename, ".whl") || !core::is_artifact_filename(filename)) return std::nullopt;
  const auto parts = split(filename.substr(0, filename.size() - 4), '-');
  if (parts.size() != 5 && parts.size() != 6) return std::nullopt;
  WheelName wheel;
  if (!core::is_valid_name(parts[0])) return std::nullopt;
  wheel.name = core::normalize_name(parts[0]);
  auto version = core::Version::parse(parts[1]);
  if (!version) return std::nullopt;
  wheel.version = std::move(version).value();
  if (parts.size() == 6) {
    wheel.build = parts[2];
    if (!is_tag_text(wheel.build, true) || wheel.build[0] < '0' || wheel.build[0] > '9')
      return std::nullopt;
  }
  const std::size_t t = parts.size() - 3;
  const auto pythons = split(parts[t], '.');
  const auto abis = split(parts[t + 1], '.');
  const auto platforms = split(parts[t + 2], '.');
  const auto all_tag_text = [](const std::vector<std::string_view>& words) {
    return std::all_of(words.begin(), words.end(),
                       [](std::string_view word) { return is_tag_text(word, false); });
  };
  if (!all_tag_text(pythons) || !all_tag_text(abis) || !all_tag_text(platforms))
    return std::nullopt;
  wheel.tags.reserve(pythons.size() * abis.size() * platforms.size());
  for (const auto python : pythons) {
    for (const auto abi : abis) {
      for (const auto platform : platforms) {
        wheel.tags.push_back(
            {util::ascii_lower(python), util::ascii_lower(abi), util::ascii_lower(platform)});
      }
    }
  }
  return wheel;
}

std::optional<SdistName> parse_sdist_filename(std::string_view filename, std::string_view project) {
  if (!core::is_artifact_filename(filename)) return std::nullopt;
  std::string_view stem;
  for (const std::string_view ext : {".tar.gz", ".zip", ".tar.bz2", ".tgz"}) {
    if (ends_with(filename, ext)) stem = filename.substr(0, filename.size() - ext.size());
  }
  if (stem.empty()) return std::nullopt;
  for (auto dash = stem.rfind('-'); dash != std::string_view::npos && dash > 0;
       dash = stem.rfind('-', dash - 1)) {
    const std::string name = core::normalize_name(stem.substr(0, dash));
    if (!project.empty() && name != project) continue;
    auto version = core::Version::parse(stem.substr(dash + 1));
    if (version && core::is_valid_name(stem.substr(0, dash))) {
      return SdistName{name, std::move(version).value()};
    }
    if (!project.empty()) return std::nullopt;
  }
  return std::nullopt;
}

TargetTags TargetTags::from(const core::Version& python, std::string_view platform_tag,
                            const core::Version& glibc) {
  TargetTags target;
  target.python = python;
  target.glibc = glibc;
  const std::string_view prefix = "linux_";
  target.machine = std::string(
      platform_tag.rfind(prefix, 0) == 0 ? platform_tag.substr(prefix.size()) : platform_tag);
  return target;
}

std::vector<Tag> TargetTags::supported() const {
  const std::uint64_t major = major_of(python);
  const std::uint64_t minor = minor_of(python);
  const std::string digits = std::to_string(major) + std::to_string(minor);
  const std::string cp = "cp" + digits;
  // CPython before 3.8 spelled its ABI with pymalloc's `m`.
  const std::string abi = (major == 3 && minor < 8) ? cp + "m" : cp;
  const std::vector<std::string> platforms = linux_platforms(*this);
  const bool abi3 = major == 3 && minor >= 2;

  std::vector<Tag> out;
  for (const auto& p : platforms) out.push_back({cp, abi, p});
  if (abi3) {
    for (const auto& p : platforms) out.push_back({cp, "abi3", p});
  }
  for (const auto& p : platforms) out.push_back({cp, "none", p});
  if (abi3) {
    for (std::uint64_t m = minor - 1; m > 1; --m) {
      for (const auto& p : platforms) {
        out.push_back({"cp" + std::to_string(major) + std::to_string(m), "abi3", p});
      }
    }
  }
  std::vector<std::string> py_range = {"py" + digits, "py" + std::to_string(major)};
  for (std::uint64_t m = minor; m-- > 0;)
    py_range.push_back("py" + std::to_string(major) + std::to_string(m));
  for (const auto& py : py_range) {
    for (const auto& p : platforms) out.push_back({py, "none", p});
  }
  out.push_back({cp, "none", "any"});
  for (const auto& py : py_range) out.push_back({py, "none", "any"});
  return out;
}

namespace {

// Tags never hold `-` (it separates them in a file name), so the key is unambiguous. Written
// into `key`, whose buffer a ranking reuses for every tag of a wheel.
void write_tag_key(const Tag& tag, std::string& key) {
  key.assign(tag.python).append(1, '-').append(tag.abi).append(1, '-').append(tag.platform);
}

}  // namespace

TagRanking::TagRanking(const TargetTags& target) {
  const std::vector<Tag> supported = target.supported();
  index_.reserve(supported.size());
  std::string key;
  for (std::size_t i = 0; i < supported.size(); ++i) {
    write_tag_key(supported[i], key);
    index_.emplace(key, i);
  }
}

std::optional<std::size_t> TagRanking::rank(const WheelName& wheel) const {
  std::optional<std::size_t> best;
  std::string key;
  for (const auto& tag : wheel.tags) {
    write_tag_key(tag, key);
    const auto it = index_.find(key);
    if (it == index_.end()) continue;
    if (!best || it->second < *best) best = it->second;
  }
  return best;
}

}  // namespace bevenv::index
