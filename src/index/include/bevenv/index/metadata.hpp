#pragma once
// Core metadata (METADATA / PKG-INFO): the fields resolution needs, from a PEP 658 file or
// read out of a wheel with libarchive.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/core/requirement.hpp"
#include "bevenv/core/specifier.hpp"
#include "bevenv/core/version.hpp"

namespace bevenv::index {

struct CoreMetadata {
  std::string name;  // as written
  core::Version version;
  core::SpecifierSet requires_python;
  std::vector<core::Requirement> requires_dist;
  std::vector<std::string> provides_extra;  // normalized
};

// Parses the RFC 822 header block. Errors name the field: a missing `Name`/`Version`, a version
// that is not PEP 440, a `Requires-Dist` that is not PEP 508.
core::Expected<CoreMetadata, std::string> parse_core_metadata(std::string_view text);

// What a METADATA file may inflate to before it is refused (TransportSettings overrides it).
inline constexpr std::uint64_t kMaxMetadataSize = 8ull << 20;

// The text of `*.dist-info/METADATA` inside a wheel (a zip), from a file or from memory; one
// larger than `limit` bytes is an error.
core::Expected<std::string, std::string> wheel_metadata_text(
    const std::filesystem::path& wheel, std::uint64_t limit = kMaxMetadataSize);
core::Expected<std::string, std::string> wheel_metadata_text_from_memory(
    std::string_view bytes, std::uint64_t limit = kMaxMetadataSize);

}  // namespace bevenv::index

namespace bevenv::index {
// PKG-INFO at the top of an sdist (tar.gz or zip), with the requirements of
// `*.egg-info/requires.txt` added when PKG-INFO names none (old setuptools). Its Requires-Dist is
// trustworthy from metadata 2.2 on, unless it is marked `Dynamic`; callers decide what to do
// with older ones.
core::Expected<std::string, std::string> sdist_metadata_text(
    const std::filesystem::path& sdist, std::uint64_t limit = kMaxMetadataSize);
}  // namespace bevenv::index
