// util/small_blocks: the pool serves nothing before it starts, then blocks that are distinct,
// aligned and writable, gives a block back to the size it came in, tells its own blocks from
// others, serves two threads at once without overlap, and answers null once its space is used.
// The pool is one per process, so one test walks it from start to exhaustion, in that order.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "bevenv/util/small_blocks.hpp"

namespace {

using bevenv::util::give_back_small_block;
using bevenv::util::kLargestSmallBlock;
using bevenv::util::take_small_block;

constexpr std::size_t kPoolBytes = std::size_t{4} << 20;  // 256 chunks of 16 KiB

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// `count` blocks of `size` bytes, each filled with `mark`; empty if the pool ran out first.
std::vector<unsigned char*> marked_blocks(std::size_t count, std::size_t size, unsigned char mark) {
  std::vector<unsigned char*> out;
  for (std::size_t i = 0; i < count; ++i) {
    auto* block = static_cast<unsigned char*>(take_small_block(size));
    if (block == nullptr) return {};
    std::memset(block, mark, size);
    out.push_back(block);
  }
  return out;
}

bool all_marked(const std::vector<unsigned char*>& blocks, std::size_t size, unsigned char mark) {
  for (const unsigned char* block : blocks) {
    for (std::size_t i = 0; i < size; ++i)
      if (block[i] != mark) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("the small-block pool serves, reuses, shares between threads and runs out", "[util]") {
  // Not started: nothing is served and nothing is taken for a block of its own.
  CHECK(take_small_block(16) == nullptr);
  int on_stack = 0;
  CHECK_FALSE(give_back_small_block(&on_stack));
  CHECK_FALSE(give_back_small_block(nullptr));

  REQUIRE(bevenv::util::start_small_blocks(kPoolBytes));
  CHECK(bevenv::util::start_small_blocks(kPoolBytes));  // once; later calls change nothing

  // Every size up to the largest: aligned, distinct, and each holds what is written to it.
  std::vector<unsigned char*> taken;
  std::set<void*> distinct;
  for (std::size_t size = 0; size <= kLargestSmallBlock; size += 7) {
    auto* block = static_cast<unsigned char*>(take_small_block(size));
    REQUIRE(block != nullptr);
    CHECK(aligned(block));
    CHECK(distinct.insert(block).second);
    std::memset(block, static_cast<int>(size % 251), size);
    taken.push_back(block);
  }
  for (std::size_t i = 0, size = 0; size <= kLargestSmallBlock; ++i, size += 7) {
    for (std::size_t b = 0; b < size; ++b) REQUIRE(taken[i][b] == size % 251);
  }
  CHECK(take_small_block(kLargestSmallBlock + 1) == nullptr);

  // A block given back is the next one taken of its size, not of another size.
  void* first = take_small_block(40);
  REQUIRE(first != nullptr);
  CHECK(give_back_small_block(first));
  void* other_size = take_small_block(100);
  CHECK(other_size != first);
  CHECK(take_small_block(33) == first);  // 33 and 40 bytes are one size class

  // The C library's blocks are not the pool's.
  void* from_malloc = std::malloc(64);
  CHECK_FALSE(give_back_small_block(from_malloc));
  std::free(from_malloc);

  // Two threads at once: neither block list overlaps the other (each keeps its mark).
  std::vector<unsigned char*> theirs;
  std::thread other([&theirs] { theirs = marked_blocks(2000, 48, 0xB2); });
  const std::vector<unsigned char*> ours = marked_blocks(2000, 48, 0xA1);
  other.join();
  REQUIRE(ours.size() == 2000);
  REQUIRE(theirs.size() == 2000);
  CHECK(all_marked(ours, 48, 0xA1));
  CHECK(all_marked(theirs, 48, 0xB2));
  // A block another thread took comes back on this one, and this one serves it again.
  CHECK(give_back_small_block(theirs.front()));
  CHECK(take_small_block(48) == theirs.front());

  // Used up: null, so that the caller's allocator serves the request instead.
  std::size_t served = 0;
  while (take_small_block(kLargestSmallBlock) != nullptr) ++served;
  CHECK(served > 0);
  CHECK(served <= kPoolBytes / kLargestSmallBlock);
  CHECK(take_small_block(kLargestSmallBlock) == nullptr);  // and stays so
}
