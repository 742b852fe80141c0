#pragma once
// A remote wheel's METADATA by HTTP range requests (remote_zip.hpp does the parsing), for
// indexes that publish no PEP 658 files: a few KiB per wheel instead of the whole wheel.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/index/transport.hpp"

namespace bevenv::index::remote {

struct WheelRead {
  std::string url;
  std::string project;  // normalized: picks the `.dist-info` when a wheel has several
};

struct WheelMetadata {
  std::optional<std::string> text;  // the METADATA file
  bool ranges_ignored = false;      // the server sent the whole file instead: download it
  std::string error;                // neither: what went wrong, naming the URL
  std::uint64_t bytes = 0;          // received for this wheel
  int requests = 0;
};

// Reads every wheel in parallel rounds: the last 16 KiB first, then whatever range the zip
// reader asks for (the central directory, the METADATA member), at most a few rounds.
std::vector<WheelMetadata> read_wheel_metadata(Transport& transport,
                                               const std::vector<WheelRead>& reads);

}  // namespace bevenv::index::remote
