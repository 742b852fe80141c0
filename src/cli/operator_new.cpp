// The executable's operator new and delete: small blocks from util's pool once a command starts
// it (the lock does), everything else from the C library. A sanitizer's build keeps its own.
#include <cstdlib>
#include <new>

#include "bevenv/util/sanitizer_allocator.hpp"
#include "bevenv/util/small_blocks.hpp"

#if !defined(BEVENV_SANITIZER_ALLOCATOR)

namespace {

void* allocate(std::size_t size) noexcept {
  if (void* block = bevenv::util::take_small_block(size)) return block;
  return std::malloc(size == 0 ? 1 : size);
}

void release(void* block) noexcept {
  if (!bevenv::util::give_back_small_block(block)) std::free(block);
}

void* allocate_or_throw(std::size_t size) {
  if (void* block = allocate(size)) return block;
  // As the standard's operator new: the new-handler may free memory, else bad_alloc.
  while (std::new_handler handler = std::get_new_handler()) {
    handler();
    if (void* block = allocate(size)) return block;
  }
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) { return allocate_or_throw(size); }
void* operator new[](std::size_t size) { return allocate_or_throw(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* block) noexcept { release(block); }
void operator delete[](void* block) noexcept { release(block); }
void operator delete(void* block, std::size_t) noexcept { release(block); }
void operator delete[](void* block, std::size_t) noexcept { release(block); }
void operator delete(void* block, const std::nothrow_t&) noexcept { release(block); }
void operator delete[](void* block, const std::nothrow_t&) noexcept { release(block); }

#endif
