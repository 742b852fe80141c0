#pragma once
// BEVENV_SANITIZER_ALLOCATOR is defined where a sanitizer brings its own malloc and operator new:
// the heap's controls (heap.hpp) would not reach it, and the executable's operator new
// (src/cli/operator_new.cpp) must not replace it.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define BEVENV_SANITIZER_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BEVENV_SANITIZER_ALLOCATOR 1
#endif
