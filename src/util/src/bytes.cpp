#include "bevenv/util/bytes.hpp"

namespace bevenv::util {

void put_number(std::string& out, std::uint64_t n) {
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
}

void put_text(std::string& out, std::string_view text) {
  put_number(out, text.size());
  out += text;
}

}  // namespace bevenv::util
