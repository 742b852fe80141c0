// util/heap: the heap a lock prepares is still an ordinary heap, and where the kernel offers
// transparent huge pages, the memory it hands out lies in a mapping that uses them from the first
// block on.
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bevenv/util/heap.hpp"
#include "bevenv/util/sanitizer_allocator.hpp"

namespace {

// `[madvise]` or `[always]`: the kernel honours MADV_HUGEPAGE.
[[maybe_unused]] bool huge_pages_offered() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  return line.find("[madvise]") != std::string::npos || line.find("[always]") != std::string::npos;
}

// A field (`THPeligible`, `AnonHugePages`) of the mapping in /proc/self/smaps that holds
// `address`, as a number; -1 if none.
[[maybe_unused]] long smaps_field(const void* address, const std::string& field) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

// Minor page faults of this process so far.
long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

}  // namespace

TEST_CASE("a prepared heap hands out memory that reads back, in huge-page-eligible mappings",
          "[util]") {
  bevenv::util::prepare_heap(std::size_t{32} << 20);
  std::vector<std::vector<int>> blocks;
  blocks.reserve(1000);
  const long faults_before = minor_faults();
  for (int i = 0; i < 1000; ++i) blocks.emplace_back(1000, i);  // a few MB of small blocks
  [[maybe_unused]] const long faults = minor_faults() - faults_before;
  for (int i = 0; i < 1000; ++i) CHECK(blocks[static_cast<std::size_t>(i)][999] == i);
  // A block of 4 MiB comes from the heap (not a mapping of its own) and is eligible.
  void* large = std::malloc(std::size_t{4} << 20);
  REQUIRE(large != nullptr);
  std::memset(large, 1, std::size_t{4} << 20);
#if defined(BEVENV_SANITIZER_ALLOCATOR)
  WARN("a sanitizer's allocator serves this build: prepare_heap leaves it alone");
#else
  if (huge_pages_offered()) {
    // 4 MB in huge pages from the first block on: a few faults, not the thousand 4 KiB pages
    // (or the 400-odd of a first, unaligned stretch of heap) would cost.
    CHECK(smaps_field(static_cast<char*>(large) + (std::size_t{2} << 20), "THPeligible") == 1);
    if (smaps_field(blocks.front().data(), "AnonHugePages") > 0) {
      CHECK(faults < 64);
    } else {
      WARN("the kernel gave no huge page (fragmented memory?): page faults not checked");
    }
  } else {
    WARN("transparent huge pages are off on this kernel: eligibility not checked");
  }
#endif
  std::free(large);
}
