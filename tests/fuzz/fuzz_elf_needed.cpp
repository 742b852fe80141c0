// Fuzzes bevenv-probe's dynamic-section reader (probes/tool/elf_needed.cpp) as a hostile or
// truncated shared object on the loader's path would be: whatever the bytes, the reader answers
// with names or an error, reads only inside the input, and keeps no more than the input holds
// (one DT_NEEDED per 16-byte entry, strings from the input, 1 MiB of them at most).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "elf_needed.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;
namespace elf = bevenv::probe_tool::elf;

namespace {

// Adds the length of a string read from an input of `size` bytes to `total`.
void count(const std::string& text, std::size_t size, std::size_t& total) {
  require(text.size() < size, "a string longer than the input");
  require(text.find('\0') == std::string::npos, "a string with its terminator inside");
  total += text.size();
}

void check(const elf::Dynamic& dynamic, std::size_t size) {
  require(dynamic.ok() || !dynamic.error.empty(), "neither an answer nor an error");
  require(!dynamic.ok() || size >= 64, "an answer without a whole ELF header");
  require(dynamic.needed.size() <= size / 16, "more DT_NEEDED than 16-byte entries fit");
  std::size_t total = 0;
  for (const auto& name : dynamic.needed) count(name, size, total);
  if (!dynamic.soname.empty()) count(dynamic.soname, size, total);
  if (dynamic.rpath) count(*dynamic.rpath, size, total);
  if (dynamic.runpath) count(*dynamic.runpath, size, total);
  require(total <= (std::size_t{1} << 20U), "more than 1 MiB of strings kept");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A copy of exactly `size` bytes: ASan then catches any read past the end.
  const std::vector<std::uint8_t> bytes(data, data + size);
  check(elf::read_dynamic_from_memory(bytes.data(), bytes.size()), size);
  return 0;
}
