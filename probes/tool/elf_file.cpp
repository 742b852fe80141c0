// The byte sources and the ELF64 header check shared by bevenv-probe's ELF readers (see
// elf_file.hpp).
#include "elf_file.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace bevenv::probe_tool::elf {

constexpr std::size_t kElfHeaderSize = sizeof(Elf64_Ehdr);

std::uint16_t u16_at(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8U));
}

std::uint32_t u32_at(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(u16_at(p)) | (static_cast<std::uint32_t>(u16_at(p + 2)) << 16U);
}

std::uint64_t u64_at(const std::uint8_t* p) {
  return static_cast<std::uint64_t>(u32_at(p)) | (static_cast<std::uint64_t>(u32_at(p + 4)) << 32U);
}

std::string hex(std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[value & 0xfU]);
    value >>= 4U;
  } while (value != 0);
  return "0x" + out;
}

bool FileSource::read(std::uint64_t offset, void* out, std::size_t length) {
  if (!fits(offset, length, size_)) return false;
  if (length > window_.size()) return read_exact(offset, out, length);
  if (offset < window_start_ || offset + length > window_start_ + window_length_) {
    window_length_ =
        static_cast<std::size_t>(std::min<std::uint64_t>(window_.size(), size_ - offset));
    window_start_ = offset;
    if (!read_exact(offset, window_.data(), window_length_)) {
      window_length_ = 0;
      return false;
    }
  }
  std::memcpy(out, window_.data() + (offset - window_start_), length);
  return true;
}

bool FileSource::read_exact(std::uint64_t offset, void* out, std::size_t length) const {
  auto* bytes = static_cast<std::uint8_t*>(out);
  while (length > 0) {
    const ssize_t got = ::pread(fd_, bytes, length, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    bytes += got;
    length -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
  return true;
}

bool MemorySource::read(std::uint64_t offset, void* out, std::size_t length) {
  if (!fits(offset, length, size_)) return false;
  if (length > 0) std::memcpy(out, data_ + offset, length);
  return true;
}

OpenFile::OpenFile(const std::string& path) {
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    error = "cannot read " + path + ": not a regular file";
    ::close(fd);
    fd = -1;
    return;
  }
  size = static_cast<std::uint64_t>(info.st_size);
  device = static_cast<std::uint64_t>(info.st_dev);
  inode = static_cast<std::uint64_t>(info.st_ino);
}

OpenFile::~OpenFile() {
  if (fd >= 0) ::close(fd);
}

bool read_header(ByteSource& source, Header& header, std::string& error) {
  std::array<std::uint8_t, kElfHeaderSize> raw{};
  if (!source.read(0, raw.data(), raw.size()) || std::memcmp(raw.data(),
                                                             "\x7f"
                                                             "ELF",
                                                             4) != 0) {
    error = "not an ELF file";
    return false;
  }
  if (raw[4] != 2 || raw[5] != 1) {
    error = "not a little-endian 64-bit ELF file";
    return false;
  }
  header.type = u16_at(&raw[0x10]);
  header.machine = u16_at(&raw[0x12]);
  header.programs = {u64_at(&raw[0x20]), u16_at(&raw[0x36]), u16_at(&raw[0x38])};
  header.sections = {u64_at(&raw[0x28]), u16_at(&raw[0x3a]), u16_at(&raw[0x3c])};
  header.section_names = u16_at(&raw[0x3e]);
  return true;
}

}  // namespace bevenv::probe_tool::elf
