#pragma once
// The bytes of the binary forms bevenv keeps (the matrix image compiled into the binary, the
// parsed pages of the download cache): LEB128 numbers and length-prefixed texts, written into a
// string and read back from a view with every length checked against what is left.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bevenv::util {

void put_number(std::string& out, std::uint64_t n);
void put_text(std::string& out, std::string_view text);

// Thrown by ByteReader when the bytes end early or hold what no writer writes: a reader turns it
// into "not this form" (a damaged cache entry, an image of another build).
struct DamagedBytes {};

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : rest_(bytes) {}

  // The matrix image's start-up reads a few hundred thousand, nearly all under 128: that one-byte
  // case is inline, and the longer ones are read out of line.
  std::uint64_t number() {
    if (!rest_.empty() && static_cast<unsigned char>(rest_.front()) < 0x80) {
      const auto n = static_cast<unsigned char>(rest_.front());
      rest_.remove_prefix(1);
      return n;
    }
    return long_number();
  }
  // A count of items that each take a byte at least: never more than the bytes left.
  std::size_t count() {
    const std::uint64_t n = number();
    if (n > rest_.size()) throw DamagedBytes{};
    return static_cast<std::size_t>(n);
  }
  bool flag() {  // a number that is 0 or 1
    const std::uint64_t n = number();
    if (n > 1) throw DamagedBytes{};
    return n == 1;
  }
  std::string_view take(std::size_t size) {
    if (size > rest_.size()) throw DamagedBytes{};
    const std::string_view out = rest_.substr(0, size);
    rest_.remove_prefix(size);
    return out;
  }
  std::string_view text() { return take(count()); }

  std::string_view rest() const { return rest_; }
  bool done() const { return rest_.empty(); }

 private:
  std::uint64_t long_number();
  std::string_view rest_;
};

}  // namespace bevenv::util
