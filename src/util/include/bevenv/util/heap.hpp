#pragma once
// The process heap, for a command that makes tens of megabytes of small objects and then exits.
#include <cstddef>

namespace bevenv::util {

// Grows the heap once by `bytes` and asks the kernel to back it with transparent huge pages
// (where it offers them: `madvise` mode or `always`), so that first touches fault in 2 MiB
// steps instead of 4 KiB ones; large blocks come from that heap too, and freed memory is not
// handed back before exit. Untouched memory costs no RAM. Does nothing where the C library or
// kernel lacks these controls. Call it once, before the allocations it is for.
void prepare_heap(std::size_t bytes);

}  // namespace bevenv::util
