#include "remote_zip.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <optional>

#include "bevenv/core/name.hpp"

namespace bevenv::index::zip {
namespace {

constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::uint32_t kLocatorSignature = 0x07064b50;
constexpr std::uint32_t kEnd64Signature = 0x06064b50;
constexpr std::uint32_t kEntrySignature = 0x02014b50;
constexpr std::uint32_t kLocalSignature = 0x04034b50;
constexpr std::uint64_t kEndSize = 22;
constexpr std::uint64_t kLocatorSize = 20;
constexpr std::uint64_t kEnd64Size = 56;
constexpr std::uint64_t kEntrySize = 46;
constexpr std::uint64_t kLocalSize = 30;
constexpr std::uint64_t kMaxComment = 0xffff;
// A central directory larger than this is refused (torch's is about 2 MiB).
constexpr std::uint64_t kMaxDirectorySize = 256ull << 20;
// How many bytes of local-header extra field to guess, so one range usually holds the header
// and the data (the central directory's copy of the extra field may differ from the local one).
constexpr std::uint64_t kLocalExtraGuess = 512;

// Little-endian fields, read in order; a read past the end marks the reader as failed.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool ok() const { return ok_; }
  std::uint64_t u16() { return number(2); }
  std::uint64_t u32() { return number(4); }
  std::uint64_t u64() { return number(8); }
  std::string_view bytes(std::uint64_t n) {
    if (!ok_ || n > bytes_.size() - pos_) {
      ok_ = false;
      return {};
    }
    const std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }

 private:
  std::uint64_t number(int width) {
    const std::string_view raw = bytes(static_cast<std::uint64_t>(width));
    std::uint64_t value = 0;
    for (std::size_t i = raw.size(); i-- > 0;)
      value = value << 8 | static_cast<unsigned char>(raw[i]);
    return value;
  }

  std::string_view bytes_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

// a + b <= limit, without overflow.
bool fits(std::uint64_t a, std::uint64_t b, std::uint64_t limit) {
  return a <= limit && b <= limit - a;
}

std::uint64_t u32_at(std::string_view bytes, std::size_t pos) {
  Reader reader(bytes.substr(pos));
  return reader.u32();
}

// The window that ends where the file ends, largest first.
const Window* tail_window(const std::vector<Window>& windows, std::uint64_t file_size) {
  const Window* best = nullptr;
  for (const Window& w : windows) {
    if (w.offset + w.bytes.size() != file_size) continue;
    if (best == nullptr || w.offset < best->offset) best = &w;
  }
  return best;
}

// The end record's offset in the file: the last signature whose comment reaches the file's end.
std::optional<std::uint64_t> find_end_record(const Window& tail) {
  const std::string_view bytes = tail.bytes;
  if (bytes.size() < kEndSize) return std::nullopt;
  const std::size_t lowest =
      bytes.size() - std::min<std::size_t>(bytes.size(), kEndSize + kMaxComment);
  for (std::size_t pos = bytes.size() - kEndSize + 1; pos-- > lowest;) {
    if (u32_at(bytes, pos) != kEndSignature) continue;
    Reader comment(bytes.substr(pos + kEndSize - 2));
    if (pos + kEndSize + comment.u16() == bytes.size()) return tail.offset + pos;
  }
  return std::nullopt;
}

// The ZIP64 end record that `locator` (at `locator_offset`) points to, or the range that holds
// it: the record lies before its locator.
core::Expected<Step<Directory>, std::string> zip64_directory(const std::vector<Window>& windows,
                                                             std::string_view locator,
                                                             std::uint64_t locator_offset) {
  Reader in(locator);
  in.u32();  // signature, checked by the caller
  const std::uint64_t disk = in.u32();
  const std::uint64_t record = in.u64();
  if (disk != 0) return core::unexpected(std::string("multi-disk zips are not supported"));
  if (!fits(record, kEnd64Size, locator_offset))
    return core::unexpected(std::string("the ZIP64 locator points past itself"));
  const auto bytes = slice(windows, {record, record + kEnd64Size});
  if (!bytes) return Step<Directory>(ByteRange{record, record + kEnd64Size});
  Reader r(*bytes);
  if (r.u32() != kEnd64Signature)
    return core::unexpected(std::string("no ZIP64 end record where the locator points"));
  r.bytes(20);  // record size, versions, disk numbers
  Directory out;
  r.u64();  // entries on this disk
  out.entries = r.u64();
  out.size = r.u64();
  out.offset = r.u64();
  if (!fits(out.offset, out.size, record))
    return core::unexpected(std::string("the central directory overlaps the ZIP64 end record"));
  return Step<Directory>(out);
}

}  // namespace

std::optional<std::string_view> slice(const std::vector<Window>& windows, ByteRange range) {
  if (range.end < range.begin) return std::nullopt;
  for (const Window& w : windows) {
    if (range.begin < w.offset || !fits(w.offset, w.bytes.size(), UINT64_MAX)) continue;
    if (range.end - w.offset > w.bytes.size()) continue;
    return std::string_view(w.bytes).substr(range.begin - w.offset, range.end - range.begin);
  }
  return std::nullopt;
}

core::Expected<Step<Directory>, std::string> find_directory(const std::vector<Window>& windows,
                                                            std::uint64_t file_size) {
  const Window* tail = tail_window(windows, file_size);
  const std::uint64_t search = kEndSize + kMaxComment + kLocatorSize;
  if (tail == nullptr)
    return Step<Directory>(ByteRange{file_size - std::min(file_size, kTailSize), file_size});
  const auto end = find_end_record(*tail);
  if (!end) {
    // A long archive comment can push the end record out of a short tail: ask once for all of
    // the bytes that may hold it, and a first read's worth before them, where the directory is.
    if (tail->offset > 0 && tail->bytes.size() < search)
      return Step<Directory>(
          ByteRange{file_size - std::min(file_size, search + kTailSize), file_size});
    return core::unexpected(std::string("not a zip: no end of central directory record"));
  }
  Reader r(*slice(windows, {*end, *end + kEndSize}));
  r.u32();
  const std::uint64_t disk = r.u16();
  const std::uint64_t directory_disk = r.u16();
  r.u16();  // entries on this disk
  Directory out;
  out.entries = r.u16();
  out.size = r.u32();
  out.offset = r.u32();
  if (*end >= kLocatorSize) {
    const ByteRange locator{*end - kLocatorSize, *end};
    const auto bytes = slice(windows, locator);
    if (!bytes) return Step<Directory>(ByteRange{locator.begin, file_size});
    if (u32_at(*bytes, 0) == kLocatorSignature)
      return zip64_directory(windows, *bytes, locator.begin);
  }
  if (disk != 0 || directory_disk != 0)
    return core::unexpected(std::string("multi-disk zips are not supported"));
  if (out.entries == 0xffff || out.size == 0xffffffff || out.offset == 0xffffffff)
    return core::unexpected(std::string("ZIP64 sizes without a ZIP64 locator"));
  if (!fits(out.offset, out.size, *end))
    return core::unexpected(std::string("the central directory overlaps the end record"));
  return Step<Directory>(out);
}

namespace {

// ZIP64 extended information (extra field 0x0001): the 64-bit values of the fields whose
// 32-bit copies are all ones, in the order the format fixes.
bool apply_zip64_extra(std::string_view extra, Entry& entry, bool size, bool csize, bool offset) {
  Reader r(extra);
  while (r.ok()) {
    const std::uint64_t id = r.u16();
    const std::uint64_t length = r.u16();
    const std::string_view data = r.bytes(length);
    if (!r.ok()) break;
    if (id != 0x0001) continue;
    Reader f(data);
    if (size) entry.uncompressed_size = f.u64();
    if (csize) entry.compressed_size = f.u64();
    if (offset) entry.local_offset = f.u64();
    return f.ok();
  }
  return !(size || csize || offset);
}

core::Expected<Entry, std::string> parse_entry(Reader& r) {
  if (r.u32() != kEntrySignature)
    return core::unexpected(std::string("a central directory entry has a bad signature"));
  Entry e;
  r.bytes(4);  // versions
  e.flags = static_cast<std::uint16_t>(r.u16());
  e.method = static_cast<std::uint16_t>(r.u16());
  r.bytes(4);  // time and date
  e.crc32 = static_cast<std::uint32_t>(r.u32());
  e.compressed_size = r.u32();
  e.uncompressed_size = r.u32();
  const std::uint64_t name_length = r.u16();
  const std::uint64_t extra_length = r.u16();
  const std::uint64_t comment_length = r.u16();
  r.bytes(8);  // disk, attributes
  e.local_offset = r.u32();
  e.name = std::string(r.bytes(name_length));
  const std::string_view extra = r.bytes(extra_length);
  r.bytes(comment_length);
  if (!r.ok()) return core::unexpected(std::string("the central directory is cut short"));
  if (!apply_zip64_extra(extra, e, e.uncompressed_size == 0xffffffff,
                         e.compressed_size == 0xffffffff, e.local_offset == 0xffffffff))
    return core::unexpected("`" + e.name + "` lacks its ZIP64 sizes");
  return e;
}

}  // namespace

core::Expected<std::vector<Entry>, std::string> parse_directory(std::string_view bytes,
                                                                std::uint64_t entries) {
  if (entries > bytes.size() / kEntrySize)
    return core::unexpected("the central directory is too small for " + std::to_string(entries) +
                            " entries");
  std::vector<Entry> out;
  out.reserve(entries);
  Reader r(bytes);
  for (std::uint64_t i = 0; i < entries; ++i) {
    auto entry = parse_entry(r);
    if (!entry) return core::unexpected(entry.error());
    out.push_back(std::move(entry).value());
  }
  return out;
}

const Entry* metadata_entry(const std::vector<Entry>& entries, std::string_view project) {
  constexpr std::string_view kSuffix = ".dist-info/METADATA";
  std::vector<const Entry*> found;
  for (const Entry& e : entries) {
    if (!e.name.ends_with(kSuffix)) continue;
    if (e.name.find('/') != e.name.size() - std::string_view("/METADATA").size()) continue;
    found.push_back(&e);
  }
  if (found.size() <= 1) return found.empty() ? nullptr : found.front();
  for (const Entry* e : found) {
    const std::string_view dir =
        std::string_view(e->name).substr(0, e->name.size() - kSuffix.size());
    const auto dash = dir.rfind('-');
    if (dash != std::string_view::npos && core::normalize_name(dir.substr(0, dash)) == project)
      return e;
  }
  return nullptr;  // several, none of them ours: guessing could read another project's metadata
}

core::Expected<Step<std::string_view>, std::string> member_data(const std::vector<Window>& windows,
                                                                const Entry& entry,
                                                                std::uint64_t directory_offset) {
  const std::uint64_t at = entry.local_offset;
  if (!fits(at, kLocalSize, directory_offset))
    return core::unexpected("`" + entry.name + "` starts past the central directory");
  const auto header = slice(windows, {at, at + kLocalSize});
  if (!header) {
    // Guess the whole member, bounded by the central directory that follows it.
    const std::uint64_t guess = kLocalSize + entry.name.size() + kLocalExtraGuess;
    const std::uint64_t want =
        fits(guess, entry.compressed_size, UINT64_MAX) ? guess + entry.compressed_size : UINT64_MAX;
    return Step<std::string_view>(
        ByteRange{at, fits(at, want, directory_offset) ? at + want : directory_offset});
  }
  Reader r(*header);
  if (r.u32() != kLocalSignature)
    return core::unexpected("`" + entry.name + "` has no local header where the directory says");
  r.bytes(22);
  const std::uint64_t name_length = r.u16();
  const std::uint64_t extra_length = r.u16();
  const std::uint64_t begin = at + kLocalSize + name_length + extra_length;
  if (!fits(begin, entry.compressed_size, directory_offset))
    return core::unexpected("`" + entry.name + "` overruns the central directory");
  const ByteRange data{begin, begin + entry.compressed_size};
  if (const auto bytes = slice(windows, data)) return Step<std::string_view>(*bytes);
  return Step<std::string_view>(data);
}

namespace {

core::Expected<std::string, std::string> inflate_raw(std::string_view compressed,
                                                     std::uint64_t size) {
  std::string out(size, '\0');
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    return core::unexpected(std::string("cannot start zlib"));
  // zlib's lengths are 32-bit; both are bounded by kMaxMemberSize.
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = inflate(&stream, Z_FINISH);
  const std::uint64_t produced = stream.total_out;
  inflateEnd(&stream);
  if (status != Z_STREAM_END || produced != size)
    return core::unexpected(std::string("the deflated data is corrupt or has another size"));
  return out;
}

}  // namespace

core::Expected<std::string, std::string> inflate_member(const Entry& entry,
                                                        std::string_view compressed) {
  if ((entry.flags & 1) != 0) return core::unexpected("`" + entry.name + "` is encrypted");
  if (entry.uncompressed_size > kMaxMemberSize || entry.compressed_size > kMaxMemberSize)
    return core::unexpected("`" + entry.name + "` is larger than " +
                            std::to_string(kMaxMemberSize >> 20) + " MiB");
  core::Expected<std::string, std::string> out = core::unexpected(std::string());
  if (entry.method == 0) {
    if (compressed.size() != entry.uncompressed_size)
      return core::unexpected("`" + entry.name + "` is stored with two different sizes");
    out = std::string(compressed);
  } else if (entry.method == 8) {
    out = inflate_raw(compressed, entry.uncompressed_size);
    if (!out) return core::unexpected("`" + entry.name + "`: " + out.error());
  } else {
    return core::unexpected("`" + entry.name + "` uses compression method " +
                            std::to_string(entry.method) + " (only stored and deflated are read)");
  }
  const auto crc =
      crc32(0L, reinterpret_cast<const Bytef*>(out->data()), static_cast<uInt>(out->size()));
  if (crc != entry.crc32) return core::unexpected("`" + entry.name + "` fails its CRC-32 check");
  return out;
}

core::Expected<Step<std::string>, std::string> read_metadata(const std::vector<Window>& windows,
                                                             std::uint64_t file_size,
                                                             std::string_view project) {
  auto directory = find_directory(windows, file_size);
  if (!directory) return core::unexpected(directory.error());
  if (const auto* need = std::get_if<ByteRange>(&*directory)) return Step<std::string>(*need);
  const Directory& dir = std::get<Directory>(*directory);
  if (dir.size > kMaxDirectorySize)
    return core::unexpected(std::string("the central directory is larger than 256 MiB"));
  const ByteRange range{dir.offset, dir.offset + dir.size};
  const auto bytes = slice(windows, range);
  if (!bytes) return Step<std::string>(range);
  auto entries = parse_directory(*bytes, dir.entries);
  if (!entries) return core::unexpected(entries.error());
  const Entry* entry = metadata_entry(*entries, project);
  if (entry == nullptr) return core::unexpected(std::string("no `*.dist-info/METADATA`"));
  auto data = member_data(windows, *entry, dir.offset);
  if (!data) return core::unexpected(data.error());
  if (const auto* need = std::get_if<ByteRange>(&*data)) return Step<std::string>(*need);
  auto text = inflate_member(*entry, std::get<std::string_view>(*data));
  if (!text) return core::unexpected(text.error());
  return Step<std::string>(std::move(text).value());
}

}  // namespace bevenv::index::zip
