#include "bevenv/util/heap.hpp"

#include <cstdint>
#include <cstdlib>

#if defined(__GLIBC__) && defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

// A sanitizer brings its own allocator, which these controls do not reach.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define BEVENV_OWN_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BEVENV_OWN_ALLOCATOR 1
#endif

namespace bevenv::util {

#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_HUGEPAGE) && \
    !defined(BEVENV_OWN_ALLOCATOR)

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
  // A block larger than the free top of the heap makes it grow now, in one step.
  void* first = std::malloc(kHugePage);
  if (first == nullptr) return;
  const auto begin = round_up(reinterpret_cast<std::uintptr_t>(first));
  const auto end = round_down(reinterpret_cast<std::uintptr_t>(sbrk(0)));
  // Advice only: where the kernel refuses it, pages stay 4 KiB and nothing else changes.
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(first);
}

#else

void prepare_heap(std::size_t) {}

#endif

}  // namespace bevenv::util
