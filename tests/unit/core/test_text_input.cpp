// Hostile input files: FIFOs, devices, directories, huge and binary files are refused at once.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "bevenv/core/error.hpp"
#include "bevenv/core/text_input.hpp"
#include "fresh_dir.hpp"

namespace fs = std::filesystem;
using bevenv::core::Error;
using bevenv::core::ExitCode;
using bevenv::core::read_regular_file;
using bevenv::testing::fresh_dir;

namespace {

// The error read_regular_file throws for `path`, which must be bad input naming the path.
std::string refusal(const fs::path& path, std::size_t limit = bevenv::core::kMaxInputBytes) {
  try {
    (void)read_regular_file(path, "the hint", limit);
  } catch (const Error& error) {
    CHECK(error.code() == ExitCode::bad_input);
    CHECK(error.hint() == "the hint");
    CHECK_THAT(error.what(), Catch::Contains("`" + path.string() + "`"));
    return error.what();
  }
  FAIL("no error for " + path.string());
  return "";
}

std::string random_bytes(std::size_t size) {
  std::mt19937 random(7);
  std::string bytes(size, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(random() & 0xff);
  return bytes;
}

}  // namespace

TEST_CASE("read_regular_file reads a plain file whole") {
  const fs::path file = fresh_dir("plain") / "log.txt";
  std::ofstream(file) << "line 1\nline 2\n";
  CHECK(read_regular_file(file, "") == "line 1\nline 2\n");
}

TEST_CASE("read_regular_file refuses a FIFO without waiting for a writer") {
  const fs::path fifo = fresh_dir("fifo") / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(refusal(fifo), Catch::Contains("is a FIFO"));
}

TEST_CASE("read_regular_file refuses directories, devices and sockets") {
  CHECK_THAT(refusal(fresh_dir("dir")), Catch::Contains("is a directory"));
  CHECK_THAT(refusal("/dev/zero"), Catch::Contains("is a character device"));
  CHECK_THAT(refusal("/dev/urandom"), Catch::Contains("is a character device"));
  const fs::path socket_path = fresh_dir("socket") / "s";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  socket_path.string().copy(address.sun_path, sizeof address.sun_path - 1);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);  // NOLINT
  CHECK_THAT(refusal(socket_path), Catch::Contains("is a socket"));
  ::close(fd);
}

TEST_CASE("read_regular_file refuses a file over the limit and a missing one") {
  const fs::path file = fresh_dir("big") / "big.log";
  std::ofstream(file) << std::string(2048, 'x');
  CHECK(read_regular_file(file, "", 2048).size() == 2048);
  CHECK_THAT(refusal(file, 2047), Catch::Contains("is larger than"));
  CHECK_THAT(refusal(file.parent_path() / "missing"), Catch::Contains("cannot be read"));
}

TEST_CASE("read_stream stops after the limit") {
  std::istringstream small("abc");
  CHECK(bevenv::core::read_stream(small, "standard input", "", 3) == "abc");
  std::istringstream big("abcd");
  CHECK_THROWS_AS(bevenv::core::read_stream(big, "standard input", "", 3), Error);
}

TEST_CASE("binary_offset tells binary data from text") {
  using bevenv::core::binary_offset;
  CHECK_FALSE(binary_offset("Traceback (most recent call last):\n  File \"x.py\"\n"));
  CHECK_FALSE(binary_offset("\x1b[31mERROR\x1b[0m caf\xc3\xa9 \xe2\x86\x92 done\r\n"));
  CHECK_FALSE(binary_offset("a Latin-1 caf\xe9 in a line of otherwise plain text\n"));
  CHECK_FALSE(binary_offset(""));
  // A stray NUL is text: torch's DataLoader writes one after its bus-error message (seen on the
  // H200, tests/golden/logs/F12.here-h200.log).
  CHECK_FALSE(binary_offset(std::string("text\0more", 9)));
  CHECK_FALSE(
      binary_offset(std::string("ERROR: Unexpected bus error encountered in worker.\n\0"
                                "Traceback (most recent call last):\n",
                                87)));
  // Mostly NULs is binary, from the first NUL of the sample.
  CHECK(binary_offset("header\n" + std::string(5000, '\0')) == 7U);
  const std::string noise = random_bytes(10000);
  CHECK(binary_offset(noise).has_value());
  // No NUL byte, but no text either.
  std::string no_nul = noise;
  for (auto& byte : no_nul) byte = byte == '\0' ? '\x01' : byte;
  CHECK(binary_offset(no_nul).has_value());
}
