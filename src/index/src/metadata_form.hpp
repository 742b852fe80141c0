#pragma once
// Core metadata as the download cache keeps it: the fields resolution reads (CoreMetadata), in a
// binary form that a warm lock reads back without the METADATA text (most of which is the
// description) and, for the markers and specifiers that recur across projects, without parsing
// each again.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "bevenv/index/metadata.hpp"

namespace bevenv::index::metadata_form {

// Cache areas; their numbers change whenever the layout does, so an older entry is never
// misread. PEP 658 files with their validators (cache.hpp's page entries) are kept in kPages;
// METADATA read from part of a remote archive, by the archive's sha256, in kArchives.
inline constexpr const char* kPages = "core-metadata-v1";
inline constexpr const char* kArchives = "metadata-v2";

std::string encode(const CoreMetadata& metadata);

// Reads forms back; each distinct marker and specifier text is parsed once per reader.
class Reader {
 public:
  // nullopt when `bytes` are not what encode() wrote (a damaged entry): the caller reads the
  // metadata again.
  std::optional<CoreMetadata> decode(std::string_view bytes);

 private:
  template <class T>
  const T& parsed(std::unordered_map<std::string, T>& memo, std::string_view text);

  std::unordered_map<std::string, core::Marker> markers_;
  std::unordered_map<std::string, core::SpecifierSet> specifiers_;
};

}  // namespace bevenv::index::metadata_form
