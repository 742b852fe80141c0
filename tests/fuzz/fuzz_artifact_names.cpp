// Fuzzes wheel and sdist file names (index/wheel.cpp, project.cpp's artifact_from_filename):
// a name that parses is normalized, a wheel has at least one complete tag, and the name written
// back from the parts parses to the same parts. Tag ranking takes any parsed wheel.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bevenv/core/name.hpp"
#include "bevenv/index/project.hpp"
#include "bevenv/index/wheel.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;
namespace index = bevenv::index;

namespace {

constexpr std::size_t kMaxFilenameBytes = 255;  // core::is_artifact_filename's limit

std::string underscored(std::string name) {
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

const index::TagRanking& ranking() {
  static const index::TagRanking ranking(
      index::TargetTags::from(bevenv::core::Version::parse("3.8.18").value(), "linux_x86_64",
                              bevenv::core::Version::parse("2.31").value()));
  return ranking;
}

void check_wheel(std::string_view filename) {
  const auto wheel = index::parse_wheel_filename(filename);
  if (!wheel) return;
  require(!wheel->name.empty() && bevenv::core::normalize_name(wheel->name) == wheel->name,
          "a wheel name that is not normalized");
  require(!wheel->tags.empty(), "a wheel without tags");
  for (const auto& tag : wheel->tags) {
    require(!tag.python.empty() && !tag.abi.empty() && !tag.platform.empty(), "an empty tag part");
  }
  (void)ranking().rank(*wheel);
  const auto& tag = wheel->tags.front();
  const std::string again = underscored(wheel->name) + "-" + wheel->version.to_string() +
                            (wheel->build.empty() ? "" : "-" + wheel->build) + "-" + tag.python +
                            "-" + tag.abi + "-" + tag.platform + ".whl";
  if (again.size() > kMaxFilenameBytes) return;  // a normalized version can be longer
  const auto reparsed = index::parse_wheel_filename(again);
  require(reparsed.has_value(), "a wheel name written from its parts does not parse");
  require(reparsed->name == wheel->name && reparsed->version == wheel->version &&
              reparsed->build == wheel->build && reparsed->tags.size() == 1 &&
              reparsed->tags.front() == tag,
          "a wheel name written from its parts reads differently");
}

void check_sdist(std::string_view filename, std::string_view project) {
  const auto sdist = index::parse_sdist_filename(filename, project);
  if (!sdist) return;
  require(!sdist->name.empty() && bevenv::core::normalize_name(sdist->name) == sdist->name,
          "an sdist name that is not normalized");
  require(project.empty() || sdist->name == project, "an sdist of another project");
  // Written back with its own extension. Normalizing can lengthen a version (`1.0-1` is
  // `1.0.post1`), so a name near the 255-byte file-name limit may have no written-back form.
  std::string_view extension = ".tar.gz";
  for (const std::string_view ext : {".tar.gz", ".zip", ".tar.bz2", ".tgz"}) {
    if (filename.ends_with(ext)) extension = ext;
  }
  const std::string again = sdist->name + "-" + sdist->version.to_string() + std::string(extension);
  if (again.size() > kMaxFilenameBytes) return;
  for (const std::string_view hint : {std::string_view(sdist->name), std::string_view()}) {
    const auto reparsed = index::parse_sdist_filename(again, hint);
    require(reparsed.has_value(), "an sdist name written from its parts does not parse");
    require(reparsed->name == sdist->name && reparsed->version == sdist->version,
            "an sdist name written from its parts reads differently");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view project = (data[0] & 1) != 0 ? "mmcv-full" : "";
  const std::string_view filename(reinterpret_cast<const char*>(data) + 1, size - 1);  // NOLINT
  check_wheel(filename);
  check_sdist(filename, project);
  const auto artifact = index::artifact_from_filename(filename, "https://x.example/f", project);
  if (artifact) {
    require(artifact->filename == filename, "an artifact renamed");
    require(!artifact->name.empty(), "an artifact without a project");
    require(project.empty() || artifact->name == project, "an artifact of another project");
    require(artifact->wheel.has_value() == (artifact->kind == index::ArtifactKind::wheel),
            "a wheel artifact without its parsed name");
  }
  return 0;
}
