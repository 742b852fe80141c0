#pragma once
// Reading an open file whole, for the readers of core (text_input.cpp, fs.cpp).
#include <cstddef>
#include <string>

namespace bevenv::core::detail {

// The rest of `fd`, read straight into the text, sized by `expected` (the file's size as fstat
// saw it; one byte more, so that the read that fills a file of unchanged size also sees its
// end): growing it block by block copied a lock's text three times and faulted in each copy's
// pages. Stops once more than `limit` bytes are read, which means the file grew past the limit.
// Sets `*failed` when a read fails; what was read before stays.
std::string read_fd(int fd, std::size_t expected, std::size_t limit, bool* failed);

}  // namespace bevenv::core::detail
