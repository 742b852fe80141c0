// Reads the architecture list of a CUDA shared object from its ELF section headers and the
// fatbin container and entry headers (see fatbin.hpp). The layout, as nvcc writes it and as
// public descriptions of cuobjdump's format give it (all little-endian):
//   container: u32 magic 0xBA55ED50, u16 version 1, u16 header size, u64 payload size;
//   entry:     u16 kind (1 PTX, 2 ELF), u16 version, u32 header size, u64 payload size,
//              ..., u32 arch at 28 (90 for sm_90), u64 flags at 40.
// Payloads are skipped by their sizes and never read, compressed or not.
#include "fatbin.hpp"

#include <elf.h>
#include <fcntl.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>
#include <utility>

namespace bevenv::probe_tool::fatbin {
namespace {

using elf::fits;
using elf::hex;
using elf::u16_at;
using elf::u32_at;
using elf::u64_at;

constexpr std::uint32_t kContainerMagic = 0xBA55ED50U;
constexpr std::size_t kContainerHeaderMin = 16;
constexpr std::size_t kEntryHeaderMin = 64;
// Real headers are 16 bytes (container) and 64-112 (entry); a larger one is a damaged file.
constexpr std::uint64_t kHeaderMax = 4096;
// libcublasLt, among the largest, has about 5 500 entries; a million is a hostile file.
constexpr std::size_t kMaxEntries = std::size_t{1} << 20;
// Linkers pad between containers to their alignment; a longer run of zeros is not padding.
constexpr std::uint64_t kMaxPadding = 4096;
constexpr std::uint16_t kKindPtx = 1;
constexpr std::uint16_t kKindElf = 2;
// Entry flags: arch-specific (sm_90a) and family-specific (sm_100f) code, compressed payload.
constexpr std::uint64_t kFlagArchSpecific = 0x100000;
constexpr std::uint64_t kFlagFamilySpecific = 0x200000;
constexpr std::uint64_t kFlagCompressedZstd = 0x8000;  // CUDA 12.8+
constexpr std::uint64_t kFlagCompressedLz4 = 0x2000;   // older toolkits
constexpr std::uint32_t kMaxArch = 10000;

// Section headers decoded byte by byte, little-endian; their size and codes are <elf.h>'s.
constexpr std::size_t kSectionHeaderSize = sizeof(Elf64_Shdr);

// An architecture as sorted: by number, then plain before `a` and `f` variants.
using ArchKey = std::pair<std::uint32_t, char>;

struct Walk {
  Archs& out;
  // How many containers carry each architecture: a library's main list is in nearly all of
  // them, a few special kernels (sm_90a) in a handful.
  std::map<ArchKey, std::size_t> sass;
  std::map<ArchKey, std::size_t> ptx;
  std::set<ArchKey> container_sass;  // of the container being read
  std::set<ArchKey> container_ptx;
};

bool fail(Archs& out, std::string message) {
  if (out.error.empty()) out.error = std::move(message);
  return false;
}

std::string arch_name(const char* prefix, const ArchKey& key) {
  std::string name = prefix + std::to_string(key.first);
  if (key.second != '\0') name += key.second;
  return name;
}

// One entry header at `at` (inside a container ending at `end`); advances `at` past its payload.
bool read_entry(ByteSource& source, std::uint64_t& at, std::uint64_t end, Walk& walk) {
  std::array<std::uint8_t, kEntryHeaderMin> header{};
  if (!fits(at, header.size(), end) || !source.read(at, header.data(), header.size())) {
    return fail(walk.out, "fatbin entry header at " + hex(at) + " is cut short");
  }
  const std::uint16_t kind = u16_at(&header[0]);
  const std::uint32_t header_size = u32_at(&header[4]);
  const std::uint64_t payload = u64_at(&header[8]);
  const std::uint32_t arch = u32_at(&header[28]);
  const std::uint64_t flags = u64_at(&header[40]);
  if (header_size < kEntryHeaderMin || header_size > kHeaderMax) {
    return fail(walk.out, "fatbin entry at " + hex(at) + " has a header size of " +
                              std::to_string(header_size));
  }
  if (!fits(at, header_size, end) || !fits(at + header_size, payload, end)) {
    return fail(walk.out, "fatbin entry at " + hex(at) + " runs past its container");
  }
  if ((kind == kKindPtx || kind == kKindElf) && (arch == 0 || arch >= kMaxArch)) {
    return fail(walk.out,
                "fatbin entry at " + hex(at) + " names architecture " + std::to_string(arch));
  }
  const char variant = (flags & kFlagArchSpecific) != 0     ? 'a'
                       : (flags & kFlagFamilySpecific) != 0 ? 'f'
                                                            : '\0';
  if (kind == kKindElf) walk.container_sass.insert({arch, variant});
  if (kind == kKindPtx) walk.container_ptx.insert({arch, variant});
  if ((flags & (kFlagCompressedZstd | kFlagCompressedLz4)) != 0) ++walk.out.compressed;
  if (++walk.out.entries > kMaxEntries) return fail(walk.out, "more than a million fatbin entries");
  at += header_size + payload;
  return true;
}

// One container at `at`; advances `at` past it.
bool read_container(ByteSource& source, std::uint64_t& at, std::uint64_t end, Walk& walk) {
  std::array<std::uint8_t, kContainerHeaderMin> header{};
  if (!source.read(at, header.data(), header.size())) {
    return fail(walk.out, "fatbin header at " + hex(at) + " cannot be read");
  }
  const std::uint16_t version = u16_at(&header[4]);
  const std::uint16_t header_size = u16_at(&header[6]);
  const std::uint64_t payload = u64_at(&header[8]);
  if (version != 1 || header_size < kContainerHeaderMin || header_size > kHeaderMax) {
    return fail(walk.out, "fatbin container at " + hex(at) + " has version " +
                              std::to_string(version) + " and header size " +
                              std::to_string(header_size));
  }
  if (!fits(at, header_size, end) || !fits(at + header_size, payload, end)) {
    return fail(walk.out, "fatbin container at " + hex(at) + " runs past its section");
  }
  ++walk.out.containers;
  std::uint64_t entry = at + header_size;
  const std::uint64_t container_end = entry + payload;
  walk.container_sass.clear();
  walk.container_ptx.clear();
  while (entry < container_end) {
    if (!read_entry(source, entry, container_end, walk)) return false;
  }
  for (const auto& key : walk.container_sass) ++walk.sass[key];
  for (const auto& key : walk.container_ptx) ++walk.ptx[key];
  at = container_end;
  return true;
}

// Skips the zeros a linker puts between containers; false (with an error) at other bytes.
bool skip_padding(ByteSource& source, std::uint64_t& at, std::uint64_t end, Archs& out) {
  const std::uint64_t start = at;
  std::array<std::uint8_t, 8> chunk{};
  while (at < end) {
    const std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(8, end - at));
    if (!source.read(at, chunk.data(), length)) return fail(out, "cannot read at " + hex(at));
    if (length >= 4 && u32_at(chunk.data()) == kContainerMagic) return true;
    const bool zeros =
        std::all_of(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(length),
                    [](std::uint8_t byte) { return byte == 0; });
    if (!zeros || at - start >= kMaxPadding) {
      return fail(out, "no fatbin header at " + hex(at) + " (bytes that are not one)");
    }
    at += length;
  }
  return true;
}

struct Section {
  std::uint32_t name = 0;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
};

bool read_section_header(ByteSource& source, std::uint64_t at, Section& section) {
  std::array<std::uint8_t, kSectionHeaderSize> raw{};
  if (!source.read(at, raw.data(), raw.size())) return false;
  section.name = u32_at(&raw[0]);
  section.type = u32_at(&raw[4]);
  section.offset = u64_at(&raw[24]);
  section.size = u64_at(&raw[32]);
  section.link = u32_at(&raw[40]);
  return true;
}

struct SectionTable {
  std::uint64_t offset = 0;  // of the first section header
  std::uint64_t entry_size = 0;
  std::uint64_t count = 0;
  Section names;  // the section-name string table
};

// The ELF header's view of the section headers, with the extended count and string-table index
// (ELF's escape for more than 65 279 sections) resolved and everything checked against the file.
bool read_section_table(ByteSource& source, SectionTable& table, Archs& out) {
  elf::Header header;
  std::string error;
  if (!elf::read_header(source, header, error)) return fail(out, error);
  table.offset = header.sections.offset;
  table.entry_size = header.sections.entry_size;
  table.count = header.sections.count;
  std::uint64_t names_index = header.section_names;
  if (table.offset == 0) return fail(out, "the ELF file has no section headers");
  if (table.entry_size < kSectionHeaderSize) return fail(out, "ELF section headers are too small");
  Section first;
  if (!read_section_header(source, table.offset, first)) {
    return fail(out, "ELF section headers lie past the end of the file");
  }
  if (table.count == 0) table.count = first.size;
  if (names_index == SHN_XINDEX) names_index = first.link;
  const std::uint64_t room = (source.size() - table.offset) / table.entry_size;
  if (table.count > room) return fail(out, "ELF section headers run past the end of the file");
  if (names_index >= table.count ||
      !read_section_header(source, table.offset + names_index * table.entry_size, table.names) ||
      !fits(table.names.offset, table.names.size, source.size())) {
    return fail(out, "the ELF section-name table is missing or damaged");
  }
  return true;
}

// The section's name when it is one this reader wants, else empty.
std::string fatbin_name(ByteSource& source, const Section& names, const Section& section) {
  static constexpr std::array<const char*, 2> kWanted{".nv_fatbin", "__nv_relfatbin"};
  if (section.name >= names.size) return {};
  std::array<char, 16> text{};
  const auto length =
      static_cast<std::size_t>(std::min<std::uint64_t>(text.size(), names.size - section.name));
  if (!source.read(names.offset + section.name, text.data(), length)) return {};
  for (const char* wanted : kWanted) {
    const std::size_t size = std::strlen(wanted) + 1;  // with its terminator
    if (size <= length && std::memcmp(text.data(), wanted, size) == 0) return wanted;
  }
  return {};
}

bool overlaps_any(const std::vector<Section>& sections, const Section& section) {
  return std::any_of(sections.begin(), sections.end(), [&](const Section& other) {
    return section.offset < other.offset + other.size &&
           other.offset < section.offset + section.size;
  });
}

// The containers of one fatbin section, [at, end) of the source.
void walk_section(ByteSource& source, std::uint64_t at, std::uint64_t end, Walk& walk) {
  while (at < end && walk.out.ok()) {
    if (!skip_padding(source, at, end, walk.out) || at >= end) break;
    if (!read_container(source, at, end, walk)) break;
  }
}

void finish(const Walk& walk) {
  for (const auto& [key, count] : walk.sass) {
    walk.out.sass.push_back(arch_name("sm_", key));
    walk.out.containers_with[walk.out.sass.back()] = count;
  }
  for (const auto& [key, count] : walk.ptx) {
    walk.out.ptx.push_back(arch_name("compute_", key));
    walk.out.containers_with[walk.out.ptx.back()] = count;
  }
}

}  // namespace

Archs read_archs(ByteSource& source) {
  Archs out;
  SectionTable table;
  if (!read_section_table(source, table, out)) return out;
  Walk walk{out, {}, {}, {}, {}};
  std::vector<Section> read;
  for (std::uint64_t i = 0; i < table.count && out.ok(); ++i) {
    Section section;
    if (!read_section_header(source, table.offset + i * table.entry_size, section)) {
      fail(out, "ELF section header " + std::to_string(i) + " cannot be read");
      break;
    }
    if (section.type == SHT_NOBITS) continue;
    const std::string name = fatbin_name(source, table.names, section);
    if (name.empty()) continue;
    if (!fits(section.offset, section.size, source.size())) {
      fail(out, name + " runs past the end of the file");
      break;
    }
    // Two headers naming the same bytes (only a forged file has them) would count them twice.
    if (overlaps_any(read, section)) continue;
    read.push_back(section);
    out.sections.push_back(name);
    walk_section(source, section.offset, section.offset + section.size, walk);
  }
  finish(walk);
  return out;
}

Archs read_fatbin(ByteSource& source) {
  Archs out;
  Walk walk{out, {}, {}, {}, {}};
  walk_section(source, 0, source.size(), walk);
  finish(walk);
  return out;
}

Archs read_archs_from_memory(const std::uint8_t* data, std::size_t size) {
  elf::MemorySource source(data, size);
  return read_archs(source);
}

Archs read_fatbin_from_memory(const std::uint8_t* data, std::size_t size) {
  elf::MemorySource source(data, size);
  return read_fatbin(source);
}

Archs read_archs_from_file(const std::string& path) {
  const elf::OpenFile file(path);
  if (file.fd < 0) {
    Archs out;
    out.error = file.error;
    return out;
  }
  // Headers are a few bytes every few hundred kilobytes: read-ahead would fetch the payloads
  // in between from a cold disk (measured 450 ms on libtorch_cuda.so without this advice).
  (void)::posix_fadvise(file.fd, 0, 0, POSIX_FADV_RANDOM);
  elf::FileSource source(file.fd, file.size);
  return read_archs(source);
}

}  // namespace bevenv::probe_tool::fatbin
