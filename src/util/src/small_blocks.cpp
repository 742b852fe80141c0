#include "bevenv/util/small_blocks.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace bevenv::util {

namespace {

// Blocks come in sizes of 16-byte steps; each 16 KiB chunk of the pool holds blocks of one size,
// recorded per chunk, so a block carries no header and its size is found from its address.
constexpr std::size_t kStep = 16;
constexpr std::size_t kSizes = kLargestSmallBlock / kStep;  // size class c holds (c + 1) * kStep
// Small, so that the size classes a command uses little leave little of their chunks unused:
// with 64 KiB chunks an offline lock touched one more 2 MiB page, which the kernel clears.
constexpr std::size_t kChunkShift = 14;
constexpr std::size_t kChunk = std::size_t{1} << kChunkShift;
constexpr std::size_t kMaxChunks = std::size_t{1} << 16;  // 1 GiB of address space at most
constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

std::atomic<char*> pool_begin{nullptr};
std::atomic<std::size_t> pool_chunks{0};
std::atomic<std::size_t> chunks_taken{0};
std::array<std::uint8_t, kMaxChunks> chunk_size_class{};

// What one thread holds: per size, a list of blocks given back and the rest of a chunk.
struct FreeBlock {
  FreeBlock* next;
};
struct ThreadBlocks {
  std::array<FreeBlock*, kSizes> given_back{};
  std::array<char*, kSizes> cursor{};
  std::array<char*, kSizes> end{};
};
thread_local ThreadBlocks blocks;

std::size_t size_class(std::size_t size) { return size == 0 ? 0 : (size - 1) / kStep; }

// A fresh chunk for `size_class`, or null when the pool is used up.
char* take_chunk(std::size_t size_class) noexcept {
  char* begin = pool_begin.load(std::memory_order_acquire);
  if (begin == nullptr) return nullptr;
  const std::size_t index = chunks_taken.fetch_add(1, std::memory_order_relaxed);
  if (index >= pool_chunks.load(std::memory_order_relaxed)) return nullptr;
  chunk_size_class[index] = static_cast<std::uint8_t>(size_class);
  return begin + index * kChunk;
}

}  // namespace

bool start_small_blocks(std::size_t bytes) {
#if defined(__linux__) && defined(MAP_NORESERVE)
  if (pool_begin.load(std::memory_order_acquire) != nullptr) return true;
  const std::size_t chunks = std::min(bytes / kChunk, kMaxChunks);
  if (chunks == 0) return false;
  // Reserved, not committed: a page costs RAM only once a block in it is used. The mapping starts
  // on a huge-page boundary so that the pages can be huge from the first block on.
  const std::size_t length = chunks * kChunk + kHugePage;
  void* mapped = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapped == MAP_FAILED) return false;
  const auto at = reinterpret_cast<std::uintptr_t>(mapped);
  auto* begin = reinterpret_cast<char*>((at + kHugePage - 1) & ~(kHugePage - 1));
#if defined(MADV_HUGEPAGE)
  madvise(begin, chunks * kChunk, MADV_HUGEPAGE);  // advice only: 4 KiB pages serve as well
#endif
  pool_chunks.store(chunks, std::memory_order_relaxed);
  pool_begin.store(begin, std::memory_order_release);
  return true;
#else
  (void)bytes;
  return false;
#endif
}

void* take_small_block(std::size_t size) noexcept {
  if (size > kLargestSmallBlock) return nullptr;
  const std::size_t c = size_class(size);
  if (FreeBlock* block = blocks.given_back[c]) {
    blocks.given_back[c] = block->next;
    return block;
  }
  const std::size_t block_size = (c + 1) * kStep;
  char* cursor = blocks.cursor[c];
  if (cursor == nullptr || blocks.end[c] - cursor < static_cast<std::ptrdiff_t>(block_size)) {
    cursor = take_chunk(c);
    if (cursor == nullptr) return nullptr;
    blocks.end[c] = cursor + kChunk;
  }
  blocks.cursor[c] = cursor + block_size;
  return cursor;
}

bool give_back_small_block(void* block) noexcept {
  const auto begin = reinterpret_cast<std::uintptr_t>(pool_begin.load(std::memory_order_relaxed));
  // Unsigned: an address below the pool wraps to an offset past it.
  const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(block) - begin;
  if (begin == 0 || offset >= pool_chunks.load(std::memory_order_relaxed) * kChunk) return false;
  const std::size_t c = chunk_size_class[offset >> kChunkShift];
  auto* freed = static_cast<FreeBlock*>(block);
  freed->next = blocks.given_back[c];
  blocks.given_back[c] = freed;
  return true;
}

}  // namespace bevenv::util
