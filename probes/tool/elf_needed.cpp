// Reads DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH and DF_1_NODEFLIB (see elf_needed.hpp).
// Layout (ELF64, little-endian): program header of 56 bytes {u32 type, u32 flags, u64 offset,
// u64 vaddr, u64 paddr, u64 filesz, u64 memsz, u64 align}; dynamic entry of 16 bytes
// {i64 tag, u64 value}. DT_STRTAB is an address, found in the file through the PT_LOAD segment
// that holds it: patchelf (which writes torch's RPATH) moves .dynstr to a segment of its own.
#include "elf_needed.hpp"

#include <elf.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace bevenv::probe_tool::elf {
namespace {

// The entry sizes of ELF64 (the entries themselves are decoded byte by byte, little-endian, so the
// reader does not depend on the host's byte order); tags and flags are <elf.h>'s.
constexpr std::size_t kProgramHeaderSize = sizeof(Elf64_Phdr);
constexpr std::size_t kDynamicEntrySize = sizeof(Elf64_Dyn);
// Real objects have a dozen segments, a few hundred dynamic entries and a few dozen DT_NEEDED
// (libtorch_cuda.so: 11, 51 and 22); far more is a damaged or hostile file.
constexpr std::uint16_t kMaxSegments = 4096;
constexpr std::uint64_t kMaxDynamicEntries = 1U << 16U;
constexpr std::size_t kMaxNeeded = 4096;
// Every string the reader keeps, added up: torch's RPATH is 700 bytes.
constexpr std::size_t kMaxStringBytes = 1U << 20U;
constexpr std::size_t kStringChunk = 256;

bool fail(Dynamic& out, std::string message) {
  if (out.error.empty()) out.error = std::move(message);
  return false;
}

struct Segment {
  std::uint64_t offset = 0;
  std::uint64_t address = 0;
  std::uint64_t file_size = 0;
};

struct Segments {
  std::vector<Segment> loads;
  std::optional<Segment> dynamic;
};

// The PT_LOAD and PT_DYNAMIC headers, each checked to lie inside the file.
bool read_segments(ByteSource& source, const HeaderTable& programs, Segments& out,
                   Dynamic& dynamic) {
  if (programs.count == 0) return true;  // no segments: nothing the loader maps
  if (programs.entry_size < kProgramHeaderSize || programs.count > kMaxSegments) {
    return fail(dynamic, "ELF program headers of " + std::to_string(programs.entry_size) +
                             " bytes, " + std::to_string(programs.count) + " of them");
  }
  const std::uint64_t table = std::uint64_t{programs.count} * programs.entry_size;
  if (!fits(programs.offset, table, source.size())) {
    return fail(dynamic, "ELF program headers run past the end of the file");
  }
  for (std::uint16_t i = 0; i < programs.count; ++i) {
    std::array<std::uint8_t, kProgramHeaderSize> raw{};
    if (!source.read(programs.offset + std::uint64_t{i} * programs.entry_size, raw.data(),
                     raw.size())) {
      return fail(dynamic, "ELF program header " + std::to_string(i) + " cannot be read");
    }
    const std::uint32_t type = u32_at(&raw[0]);
    if (type != PT_LOAD && type != PT_DYNAMIC) continue;
    const Segment segment{u64_at(&raw[8]), u64_at(&raw[16]), u64_at(&raw[32])};
    if (!fits(segment.offset, segment.file_size, source.size())) {
      return fail(dynamic, "ELF segment " + std::to_string(i) + " runs past the end of the file");
    }
    if (type == PT_LOAD) out.loads.push_back(segment);
    if (type == PT_DYNAMIC && !out.dynamic) out.dynamic = segment;
  }
  return true;
}

// The file offset of `length` bytes at `address`, when one PT_LOAD segment holds all of them.
std::optional<std::uint64_t> file_offset(const Segments& segments, std::uint64_t address,
                                         std::uint64_t length) {
  for (const auto& load : segments.loads) {
    if (address < load.address) continue;
    const std::uint64_t into = address - load.address;
    if (fits(into, length, load.file_size)) return load.offset + into;
  }
  return std::nullopt;
}

// The values of the dynamic entries this reader wants; strings are offsets into DT_STRTAB.
struct Entries {
  std::vector<std::uint64_t> needed;
  std::optional<std::uint64_t> strtab;
  std::optional<std::uint64_t> strsz;
  std::optional<std::uint64_t> soname;
  std::optional<std::uint64_t> rpath;
  std::optional<std::uint64_t> runpath;
  std::uint64_t flags_1 = 0;
};

// One entry into `entries`; false (with an error) when there are too many DT_NEEDED.
bool take_entry(std::uint64_t tag, std::uint64_t value, Entries& entries, Dynamic& out) {
  switch (tag) {
    case DT_NEEDED:
      if (entries.needed.size() >= kMaxNeeded) return fail(out, "more than 4096 DT_NEEDED");
      entries.needed.push_back(value);
      break;
    // The loader keeps the last of each, and so does this reader.
    case DT_STRTAB:
      entries.strtab = value;
      break;
    case DT_STRSZ:
      entries.strsz = value;
      break;
    case DT_SONAME:
      entries.soname = value;
      break;
    case DT_RPATH:
      entries.rpath = value;
      break;
    case DT_RUNPATH:
      entries.runpath = value;
      break;
    case DT_FLAGS_1:
      entries.flags_1 = value;
      break;
    default:
      break;
  }
  return true;
}

bool read_entries(ByteSource& source, const Segment& dynamic, Entries& entries, Dynamic& out) {
  const std::uint64_t count = dynamic.file_size / kDynamicEntrySize;
  if (count > kMaxDynamicEntries) {
    return fail(out, "a dynamic segment of " + std::to_string(count) + " entries");
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    std::array<std::uint8_t, kDynamicEntrySize> raw{};
    if (!source.read(dynamic.offset + i * kDynamicEntrySize, raw.data(), raw.size())) {
      return fail(out, "dynamic entry " + std::to_string(i) + " cannot be read");
    }
    const std::uint64_t tag = u64_at(&raw[0]);
    if (tag == DT_NULL) return true;
    if (!take_entry(tag, u64_at(&raw[8]), entries, out)) return false;
  }
  return true;  // no DT_NULL: the segment's end ends the list
}

// The string table as it lies in the file.
struct Strings {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::size_t kept = 0;  // bytes handed out so far, against kMaxStringBytes
};

bool read_string(ByteSource& source, Strings& table, std::uint64_t at, std::string& text,
                 Dynamic& out) {
  if (at >= table.size) {
    return fail(out, "a dynamic string at " + hex(at) + " lies past DT_STRSZ " + hex(table.size));
  }
  text.clear();
  std::array<char, kStringChunk> chunk{};
  for (std::uint64_t pos = at; pos < table.size; pos += chunk.size()) {
    const auto length =
        static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), table.size - pos));
    if (!source.read(table.offset + pos, chunk.data(), length)) {
      return fail(out, "the dynamic string table cannot be read at " + hex(table.offset + pos));
    }
    const void* end = std::memchr(chunk.data(), '\0', length);
    const std::size_t used =
        end == nullptr ? length
                       : static_cast<std::size_t>(static_cast<const char*>(end) - chunk.data());
    if (table.kept + text.size() + used > kMaxStringBytes) {
      return fail(out, "more than 1 MiB of dynamic strings");
    }
    text.append(chunk.data(), used);
    if (end != nullptr) {
      table.kept += text.size();
      return true;
    }
  }
  return fail(out, "a dynamic string at " + hex(at) + " has no terminator");
}

bool read_optional_string(ByteSource& source, Strings& table,
                          const std::optional<std::uint64_t>& at, std::optional<std::string>& text,
                          Dynamic& out) {
  if (!at) return true;
  text.emplace();
  return read_string(source, table, *at, *text, out);
}

bool read_strings(ByteSource& source, const Segments& segments, const Entries& entries,
                  Dynamic& out) {
  const bool any = !entries.needed.empty() || entries.soname || entries.rpath || entries.runpath;
  if (!any) return true;
  if (!entries.strtab || !entries.strsz) return fail(out, "no DT_STRTAB or DT_STRSZ");
  const auto offset = file_offset(segments, *entries.strtab, *entries.strsz);
  if (!offset) {
    return fail(out, "DT_STRTAB " + hex(*entries.strtab) + " (" + hex(*entries.strsz) +
                         " bytes) lies in no loaded segment");
  }
  Strings table{*offset, *entries.strsz, 0};
  for (const std::uint64_t at : entries.needed) {
    std::string name;
    if (!read_string(source, table, at, name, out)) return false;
    out.needed.push_back(std::move(name));
  }
  std::optional<std::string> soname;
  if (!read_optional_string(source, table, entries.soname, soname, out)) return false;
  out.soname = soname.value_or("");
  return read_optional_string(source, table, entries.rpath, out.rpath, out) &&
         read_optional_string(source, table, entries.runpath, out.runpath, out);
}

}  // namespace

Dynamic read_dynamic(ByteSource& source) {
  Dynamic out;
  Header header;
  if (!read_header(source, header, out.error)) return out;
  out.machine = header.machine;
  Segments segments;
  if (!read_segments(source, header.programs, segments, out) || !segments.dynamic) return out;
  Entries entries;
  if (!read_entries(source, *segments.dynamic, entries, out)) return out;
  out.nodeflib = (entries.flags_1 & DF_1_NODEFLIB) != 0;
  read_strings(source, segments, entries, out);
  return out;
}

Dynamic read_dynamic_from_memory(const std::uint8_t* data, std::size_t size) {
  MemorySource source(data, size);
  return read_dynamic(source);
}

Dynamic read_dynamic_from_file(const std::string& path) {
  const OpenFile file(path);
  if (file.fd < 0) {
    Dynamic out;
    out.error = file.error;
    return out;
  }
  FileSource source(file.fd, file.size);
  return read_dynamic(source);
}

}  // namespace bevenv::probe_tool::elf
