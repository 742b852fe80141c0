// Fuzzes the lockfile reader (lockfiles/src/reader.cpp): any bytes are refused with a ReadError
// that says where, or read into a model that the writer accepts and that survives a round trip
// through the canonical text unchanged. Exports and `why` of an accepted lock never throw. The
// quick scan for pins (lockfiles/src/pins.cpp) says nothing, or what the whole read says.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "bevenv/lockfiles/diff.hpp"
#include "bevenv/lockfiles/export.hpp"
#include "bevenv/lockfiles/model.hpp"
#include "bevenv/lockfiles/pins.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "bevenv/lockfiles/why.hpp"
#include "bevenv/lockfiles/writer.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;
namespace lf = bevenv::lockfiles;

namespace {

void check_accepted(const lf::Lockfile& lock) {
  require(lf::validate(lock).empty(), "an accepted lock breaks validate()");
  const std::string text = lf::to_toml(lock);
  const auto again = lf::parse_lockfile(text, "again.lock");
  if (!again) std::fprintf(stderr, "%s\n", again.error().to_string().c_str());
  require(again.has_value(), "the canonical text of an accepted lock is refused");
  require(*again == lock, "a round trip through the canonical text changes the model");
  require(lf::to_toml(*again) == text, "the canonical text is not a fixed point");
  require(lf::diff_lockfiles(lock, *again).empty(), "a lock differs from its own copy");
  const auto scanned = lf::scan_written_pins(text);
  require(!scanned || *scanned == lf::pins_of(lock), "the scan of written text disagrees");
  (void)lf::export_requirements(lock);
  lf::RequirementsOptions no_hashes;
  no_hashes.hashes = false;
  (void)lf::export_requirements(lock, no_hashes);
  (void)lf::export_json(lock);
  for (const auto& package : lock.packages) {
    const auto lines = lf::explain_package(lock, package.name);
    require(lines.has_value(), "`why` cannot find a locked package");
    (void)lf::to_text(*lines);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);  // NOLINT
  try {
    const auto lock = lf::parse_lockfile(text, "fuzz.lock");
    const auto scanned = lf::scan_written_pins(text);
    require(!scanned || (lock && *scanned == lf::pins_of(*lock)),
            "the scan says other than the whole read");
    if (!lock) {
      const auto& error = lock.error();
      require(error.line >= 1 && error.column >= 1, "a refusal without a position");
      require(!error.message.empty(), "a refusal that says nothing");
      return 0;
    }
    check_accepted(*lock);
  } catch (const std::exception& error) {
    // parse_lockfile returns its errors; anything thrown is a bug.
    std::fprintf(stderr, "exception: %s\n", error.what());
    require(false, "an exception escaped the lockfile reader or writer");
  }
  return 0;
}
