#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace bevenv::core {

// Incremental SHA-256 (FIPS 180-4); used for input hashes and artifact checks.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::array<std::uint8_t, 32> finish();
  std::string hex_digest();  // finishes, lower-case hex

 private:
  void compress_blocks(const std::uint8_t* data, std::size_t blocks);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);

}  // namespace bevenv::core
