#pragma once
// An sdist's PKG-INFO read from the transfer as it arrives: libarchive (gzip, tar) runs on a
// thread of its own, pulling the chunks the transport pushes, and the transfer stops as soon
// as PKG-INFO (and requires.txt where needed) has been read. An sdist whose PKG-INFO is near
// its start costs a few KiB; one that keeps it last costs the whole file, never more.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/index/transport.hpp"

namespace bevenv::index::remote {

struct SdistMetadata {
  std::optional<std::string> text;  // PKG-INFO, with requires.txt's requirements where needed
  std::string error;                // otherwise: what went wrong, naming the URL
  std::uint64_t bytes = 0;          // received
};

std::vector<SdistMetadata> read_sdist_metadata(Transport& transport,
                                               const std::vector<std::string>& urls);

}  // namespace bevenv::index::remote
