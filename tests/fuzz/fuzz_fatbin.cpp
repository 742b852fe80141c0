// Fuzzes bevenv-probe's fatbin reader (probes/tool/fatbin.cpp) as a hostile or truncated
// shared object would: the input is read both as an ELF64 file and as a bare fatbin. Whatever
// the bytes, the reader answers with lists or an error, reads only inside the input, and
// reports no more containers and entries than the input has room for.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fatbin.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;
namespace fatbin = bevenv::probe_tool::fatbin;

namespace {

bool has_prefix(const std::string& text, const std::string& prefix) {
  return text.size() > prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

// The lists are unique, spelled `sm_N`/`compute_N` (a letter may follow), and counted.
void check_list(const fatbin::Archs& archs, const std::vector<std::string>& list,
                const std::string& prefix) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    require(has_prefix(list[i], prefix), "an architecture without its prefix");
    require(std::count(list.begin(), list.end(), list[i]) == 1, "an architecture twice");
    const auto count = archs.containers_with.find(list[i]);
    require(count != archs.containers_with.end() && count->second >= 1 &&
                count->second <= archs.containers,
            "an architecture counted in more containers than were read");
  }
}

void check(const fatbin::Archs& archs, std::size_t size) {
  require(archs.containers <= size / 16, "more containers than 16-byte headers fit");
  require(archs.entries <= size / 64, "more entries than 64-byte headers fit");
  require(archs.compressed <= archs.entries, "more compressed entries than entries");
  check_list(archs, archs.sass, "sm_");
  check_list(archs, archs.ptx, "compute_");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A copy of exactly `size` bytes: ASan then catches any read past the end.
  const std::vector<std::uint8_t> bytes(data, data + size);
  check(fatbin::read_archs_from_memory(bytes.data(), bytes.size()), size);
  check(fatbin::read_fatbin_from_memory(bytes.data(), bytes.size()), size);
  return 0;
}
