// Fuzzes the range-reading zip parser (src/index/src/remote_zip.cpp): the input is a whole
// "remote file", served range by range as the transport would serve it. Every range the reader
// asks for must lie inside the file and hold bytes it does not have yet (else a read would loop),
// and the reader must answer within a few ranges. The central-directory parser is also run on
// the raw input with an entry count taken from its first two bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "fuzz_check.hpp"
#include "remote_zip.hpp"

using bevenv::fuzz::require;
namespace zip = bevenv::index::zip;

namespace {

bool covered(const std::vector<zip::Window>& windows, zip::ByteRange range) {
  return zip::slice(windows, range).has_value();
}

void read_as_remote(const std::string& file) {
  const std::uint64_t size = file.size();
  std::vector<zip::Window> windows;
  zip::ByteRange next{size - std::min<std::uint64_t>(size, zip::kTailSize), size};
  for (int round = 0; round < 6; ++round) {
    windows.push_back({next.begin, file.substr(next.begin, next.end - next.begin)});
    auto step = zip::read_metadata(windows, size, "demo");
    if (!step) {
      require(!step.error().empty(), "an error without a message");
      return;
    }
    if (const auto* text = std::get_if<std::string>(&*step)) {
      require(text->size() <= zip::kMaxMemberSize, "a member above the size bound");
      return;
    }
    next = std::get<zip::ByteRange>(*step);
    require(next.begin < next.end && next.end <= size, "a range outside the file");
    require(!covered(windows, next), "a range the reader already has");
  }
  require(false, "more than six ranges for one member");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file(reinterpret_cast<const char*>(data), size);
  read_as_remote(file);
  if (size >= 2) {
    const std::uint64_t entries = data[0] | static_cast<std::uint64_t>(data[1]) << 8;
    auto parsed = zip::parse_directory(std::string_view(file).substr(2), entries);
    if (parsed) require(parsed->size() == entries, "a directory with another entry count");
  }
  return 0;
}
