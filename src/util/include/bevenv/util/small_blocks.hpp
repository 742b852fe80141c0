#pragma once
// A pool of small blocks for a command that makes a few hundred thousand small objects and then
// exits: taking a block is a pointer bump or a free-list pop, with no header and no locking.
#include <cstddef>

namespace bevenv::util {

// The largest block the pool serves; bigger requests are the C library's.
inline constexpr std::size_t kLargestSmallBlock = 512;

// Reserves the pool's address space (`bytes`, untouched until used, in huge pages where the
// kernel offers them) and starts serving blocks. Once; later calls do nothing. False where the
// reservation fails: the pool then serves nothing.
bool start_small_blocks(std::size_t bytes);

// A block of at least `size` bytes, aligned for any object of that size; null when the pool has
// not started, `size` is over kLargestSmallBlock, or its space is used up.
void* take_small_block(std::size_t size) noexcept;

// Gives back a block take_small_block() returned and returns true; false for any other pointer
// (null included), which the caller frees as it was allocated. A block given back on one thread
// may be taken again on that thread only.
bool give_back_small_block(void* block) noexcept;

}  // namespace bevenv::util
