#pragma once
// PEP 427 wheel file names, sdist file names and PEP 425 compatibility tags: which artifact of a
// release fits a target (Python version, architecture, glibc), and how well.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bevenv/core/version.hpp"

namespace bevenv::index {

struct Tag {
  std::string python;    // `cp38`, `py3`
  std::string abi;       // `cp38`, `abi3`, `none`
  std::string platform;  // `manylinux_2_17_x86_64`, `linux_x86_64`, `any`
  bool operator==(const Tag&) const = default;
};

// `{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`; compressed tag sets
// (`py2.py3-none-any`) expand to every combination.
struct WheelName {
  std::string name;  // normalized
  core::Version version;
  std::string build;  // build tag, empty when none
  std::vector<Tag> tags;
};
std::optional<WheelName> parse_wheel_filename(std::string_view filename);

// `{name}-{version}.tar.gz` (or .zip, .tar.bz2). The split between name and version is the last
// `-` after which a PEP 440 version parses, unless `project` (normalized) says where it is.
struct SdistName {
  std::string name;  // normalized
  core::Version version;
};
std::optional<SdistName> parse_sdist_filename(std::string_view filename,
                                              std::string_view project = {});

// The interpreter and machine an artifact must run on: CPython only, Linux only.
struct TargetTags {
  core::Version python;            // 3.8.18 (major and minor are used)
  std::string machine = "x86_64";  // from the platform tag `linux_x86_64`
  core::Version glibc;             // 2.31; manylinux_2_X fits when X <= 31

  // From a platform tag such as `linux_x86_64` or `linux_aarch64`.
  static TargetTags from(const core::Version& python, std::string_view platform_tag,
                         const core::Version& glibc);
  // Every tag the target accepts, best first, in the order pip (packaging.tags.sys_tags) uses.
  std::vector<Tag> supported() const;
};

// Ranks tags: 0 is the best. Built once per target, then queried per wheel.
class TagRanking {
 public:
  explicit TagRanking(const TargetTags& target);
  // The best rank among the wheel's tags; nullopt when no tag fits the target.
  std::optional<std::size_t> rank(const WheelName& wheel) const;

 private:
  // `python-abi-platform` -> its first place in the target's list: a profile lock ranks the
  // files of every generated release, thousands of tags against hundreds.
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace bevenv::index
