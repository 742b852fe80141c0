#pragma once
// What the two ELF readers of bevenv-probe share: the fatbin reader (fatbin.cpp, section
// headers) and the dynamic-section reader (elf_needed.cpp, program headers) both read a few
// headers of files that may be 1 GB or hostile, through the same bounded byte sources and the
// same checked ELF64 header.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace bevenv::probe_tool::elf {

// Where the bytes come from: a file (pread) or a buffer (tests, the fuzzers).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Copies `length` bytes at `offset` into `out`; false unless all of them exist.
  virtual bool read(std::uint64_t offset, void* out, std::size_t length) = 0;
};

// A file through pread, with a small window so that neighbouring headers cost one read. The
// descriptor stays the caller's.
class FileSource final : public ByteSource {
 public:
  FileSource(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t offset, void* out, std::size_t length) override;

 private:
  bool read_exact(std::uint64_t offset, void* out, std::size_t length) const;

  int fd_;
  std::uint64_t size_;
  std::array<std::uint8_t, 1024> window_{};
  std::uint64_t window_start_ = 0;
  std::size_t window_length_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t offset, void* out, std::size_t length) override;

 private:
  const std::uint8_t* data_;
  std::size_t size_;
};

// An open, read-only file descriptor that closes itself; `error` says why when `fd < 0`.
struct OpenFile {
  explicit OpenFile(const std::string& path);
  ~OpenFile();
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;

  int fd = -1;
  std::uint64_t size = 0;
  std::uint64_t device = 0;  // with `inode`: the file's identity, as the loader compares it
  std::uint64_t inode = 0;
  std::string error;
};

std::uint16_t u16_at(const std::uint8_t* p);
std::uint32_t u32_at(const std::uint8_t* p);
std::uint64_t u64_at(const std::uint8_t* p);

// `offset + length` lies within `limit`, without overflowing.
inline bool fits(std::uint64_t offset, std::uint64_t length, std::uint64_t limit) {
  return offset <= limit && length <= limit - offset;
}

std::string hex(std::uint64_t value);

// Where a table of headers lies in the file, as the ELF header gives it: the program headers
// (e_phoff, e_phentsize, e_phnum) or the section headers (e_shoff, e_shentsize, e_shnum).
struct HeaderTable {
  std::uint64_t offset = 0;
  std::uint16_t entry_size = 0;
  std::uint16_t count = 0;
};

// The fields of an ELF64 little-endian header that the readers use.
struct Header {
  std::uint16_t type = 0;
  std::uint16_t machine = 0;
  HeaderTable programs;             // read by elf_needed.cpp
  HeaderTable sections;             // read by fatbin.cpp
  std::uint16_t section_names = 0;  // e_shstrndx: the section holding the section names
};

// Reads and checks the header: "not an ELF file" or "not a little-endian 64-bit ELF file" in
// `error` otherwise.
bool read_header(ByteSource& source, Header& header, std::string& error);

}  // namespace bevenv::probe_tool::elf
