// Fuzzes the parsed forms of the download cache (index/listing_form.cpp, metadata_form.cpp) on
// bytes a crash, a full disk or another program may have left: the first byte picks the form.
// Bytes that decode are well formed: what they decode to encodes to bytes that decode to the
// same, and a listing holds files of the project asked for only.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "listing_form.hpp"
#include "metadata_form.hpp"

using bevenv::fuzz::require;
namespace index = bevenv::index;

namespace {

void check_listing(std::string_view bytes) {
  const auto read = index::listing_form::decode(bytes, "six");
  if (!read) return;
  for (const auto& a : *read) require(a.name == "six", "a file of another project");
  const std::string encoded = index::listing_form::encode(*read);
  const auto again = index::listing_form::decode(encoded, "six");
  require(again.has_value(), "an encoded listing does not decode");
  require(index::listing_form::encode(*again) == encoded, "a listing changes through a round trip");
}

void check_metadata(std::string_view bytes) {
  static index::metadata_form::Reader reader;  // shared, as a client's is across reads
  const auto read = reader.decode(bytes);
  if (!read) return;
  const std::string encoded = index::metadata_form::encode(*read);
  const auto again = reader.decode(encoded);
  require(again.has_value(), "encoded metadata does not decode");
  require(index::metadata_form::encode(*again) == encoded, "metadata changes through a round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);  // NOLINT
  if (data[0] % 2 == 0) {
    check_listing(bytes);
  } else {
    check_metadata(bytes);
  }
  return 0;
}
