#pragma once
// An sdist's core metadata from its archive, read front to back and no further than needed:
// used on files (metadata.cpp) and on a transfer as it arrives (sdist_stream.cpp).
#include <string>
#include <string_view>

#include "bevenv/core/expected.hpp"
#include "bevenv/index/metadata.hpp"

struct archive;

namespace bevenv::index {

// The top-level `NAME-VERSION/PKG-INFO`. Old setuptools wrote no Requires-Dist there: when it
// names none and `*.egg-info/requires.txt` is in the archive, its requirements are added as
// Requires-Dist lines. Returns as soon as it has both (or PKG-INFO with Requires-Dist).
// An entry that inflates past `limit` bytes is an error.
core::Expected<std::string, std::string> scan_sdist(archive* reader, std::string_view what,
                                                    std::uint64_t limit = kMaxMetadataSize);

// The archive entry `reader` stands at, whole; an entry that inflates past `limit` bytes is an
// error naming `path` in `what` (its stated size is not to be trusted).
core::Expected<std::string, std::string> read_archive_entry(archive* reader, std::string_view path,
                                                            std::string_view what,
                                                            std::uint64_t limit);

// requires.txt (`[extra]`, `[extra:marker]`, `[:marker]` sections) as Requires-Dist lines, each
// ending in a newline.
std::string requires_dist_lines(std::string_view requires_txt);

// `headers` (a PKG-INFO) with `lines` added at the end of its header block.
std::string with_header_lines(std::string_view headers, std::string_view lines);

}  // namespace bevenv::index
