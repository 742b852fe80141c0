#include "bevenv/util/heap.hpp"

#include <cstdint>
#include <cstdlib>

#include "bevenv/util/sanitizer_allocator.hpp"

#if defined(__GLIBC__) && defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace bevenv::util {

#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_HUGEPAGE) && \
    !defined(BEVENV_SANITIZER_ALLOCATOR)

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

std::uintptr_t round_up(std::uintptr_t n) { return (n + kHugePage - 1) & ~(kHugePage - 1); }
std::uintptr_t round_down(std::uintptr_t n) { return n & ~(kHugePage - 1); }

}  // namespace

void prepare_heap(std::size_t bytes) {
  const auto padding = static_cast<int>(bytes);
  // Blocks under `bytes` come from the heap, not from mappings of their own (each of which
  // would fault in 4 KiB pages); the heap grows by `bytes` beyond each request, and what is
  // freed stays (a trim would give back the huge pages the next allocation faults in again).
  if (mallopt(M_MMAP_THRESHOLD, padding / 2) == 0 || mallopt(M_TOP_PAD, padding) == 0 ||
      mallopt(M_TRIM_THRESHOLD, 2 * padding) == 0)
    return;
  // Only a whole, aligned 2 MiB can be a huge page, and one touched before the advice below
  // stays in 4 KiB pages. So the break first moves to the next boundary (start-up left it
  // anywhere); then a block of just under 2 MiB makes the heap grow in one step. Growing touches
  // two pages, the block's header and that of the free top after it, both in the block's 2 MiB:
  // the block is kept, never used, and what the command allocates starts past it, in memory
  // nothing has touched. Untouched, the block costs no RAM.
  const auto start = reinterpret_cast<std::uintptr_t>(sbrk(0));
  sbrk(static_cast<std::intptr_t>(round_up(start) - start));
  void* kept = std::malloc(kHugePage - 64);
  if (kept == nullptr) return;
  const auto begin = round_up(start);
  const auto end = round_down(reinterpret_cast<std::uintptr_t>(sbrk(0)));
  // Advice only: where the kernel refuses it, pages stay 4 KiB and nothing else changes.
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

#else

void prepare_heap(std::size_t) {}

#endif

}  // namespace bevenv::util
