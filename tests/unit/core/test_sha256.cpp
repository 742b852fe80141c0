#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "bevenv/core/sha256.hpp"
#include "bevenv/core/subprocess.hpp"
#include "sha256_blocks.hpp"

using bevenv::core::run_process;
using bevenv::core::Sha256;
using bevenv::core::sha256_hex;

namespace {

// coreutils' sha256sum is the oracle.
std::string sha256sum(const std::string& data) {
  bevenv::core::ProcessOptions options;
  options.input = data;
  const auto result = run_process({"sha256sum", "-"}, options);
  REQUIRE(result.exit_code == 0);
  return result.out.substr(0, 64);
}

}  // namespace

TEST_CASE("sha256 agrees with sha256sum on lengths around block boundaries") {
  std::mt19937 random(7);
  for (std::size_t length :
       {0u, 1u, 3u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u, 1000u, 65536u, 100003u}) {
    std::string data(length, '\0');
    for (auto& c : data) c = static_cast<char>(random() & 0xff);
    INFO("length " << length);
    CHECK(sha256_hex(data) == sha256sum(data));
  }
}

TEST_CASE("sha256 gives the same digest fed in pieces") {
  std::string data(5000, 'x');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i % 26);
  Sha256 pieces;
  for (std::size_t at = 0; at < data.size(); at += 37) {
    pieces.update(std::string_view(data).substr(at, 37));
  }
  CHECK(pieces.hex_digest() == sha256_hex(data));
}

TEST_CASE("the SHA extensions compress as the portable code does") {
  namespace detail = bevenv::core::detail;
  if (!detail::sha256_extensions_available()) {
    WARN("this CPU has no SHA extensions: only the portable code runs here");
    return;
  }
  std::mt19937 random(11);
  for (std::size_t blocks : {1u, 2u, 3u, 17u, 256u}) {
    std::string data(64 * blocks, '\0');
    for (auto& c : data) c = static_cast<char>(random() & 0xff);
    detail::Sha256State portable{};
    for (auto& word : portable) word = static_cast<std::uint32_t>(random());
    detail::Sha256State extensions = portable;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
    detail::sha256_blocks_portable(portable, bytes, blocks);
    detail::sha256_blocks_extensions(extensions, bytes, blocks);
    INFO("blocks " << blocks);
    CHECK(portable == extensions);
  }
}
