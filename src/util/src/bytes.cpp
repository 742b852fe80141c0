#include "bevenv/util/bytes.hpp"

namespace bevenv::util {

void put_number(std::string& out, std::uint64_t n) {
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
}

std::uint64_t ByteReader::long_number() {
  std::uint64_t n = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (rest_.empty()) throw DamagedBytes{};
    const auto byte = static_cast<unsigned char>(rest_.front());
    rest_.remove_prefix(1);
    n |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return n;
  }
  throw DamagedBytes{};  // longer than any 64-bit number
}

void put_text(std::string& out, std::string_view text) {
  put_number(out, text.size());
  out += text;
}

}  // namespace bevenv::util
