#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "bevenv/core/sha256.hpp"
#include "bevenv/core/subprocess.hpp"

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
