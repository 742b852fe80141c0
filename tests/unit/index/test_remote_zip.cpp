// The range-reading zip parser (src/index/src/remote_zip.cpp) on zips Python's zipfile writes:
// deflated and stored members, ZIP64 end records and extra fields, a central directory larger
// than the first read, a comment that pushes the end record out of it, two `.dist-info`
// directories. zipfile's reading of each METADATA is the oracle; the ranges are served from
// the file's bytes, as an HTTP server would.
#include <catch2/catch.hpp>
#include <filesystem>

#include "bevenv/core/fs.hpp"
#include "bevenv/core/subprocess.hpp"
#include "remote_zip.hpp"

using namespace bevenv;
using namespace bevenv::index;
namespace fs = std::filesystem;

namespace {

// Writes each case's zip as NAME.whl and zipfile's reading of the METADATA it should yield as
// NAME.expected (absent when the read must fail).
constexpr const char* kWriter = R"PY(
import os, random, sys, zipfile
out = sys.argv[1]
rng = random.Random(7)
def noise(n): return bytes(rng.getrandbits(8) for _ in range(n))
meta = ("Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: six>=1.10\n"
        "Requires-Dist: attrs; extra == 'docs'\n\n" + "A long description. " * 400 + "\n")
def write(name, build, comment=b""):
    path = os.path.join(out, name + ".whl")
    with zipfile.ZipFile(path, "w") as z:
        build(z)
        z.comment = comment
    return path
def expect(name, member="demo-1.0.dist-info/METADATA"):
    with zipfile.ZipFile(os.path.join(out, name + ".whl")) as z, \
         open(os.path.join(out, name + ".expected"), "wb") as f:
        f.write(z.read(member))
def small(z):
    z.writestr("demo/__init__.py", "x = 1\n", zipfile.ZIP_DEFLATED)
    z.writestr("demo-1.0.dist-info/METADATA", meta, zipfile.ZIP_DEFLATED)
write("deflated", small); expect("deflated")
write("stored", lambda z: z.writestr("demo-1.0.dist-info/METADATA", meta, zipfile.ZIP_STORED))
expect("stored")
def far(z):  # METADATA first, 300 KB after it, then a directory larger than the first read
    z.writestr("demo-1.0.dist-info/METADATA", meta, zipfile.ZIP_DEFLATED)
    z.writestr("demo/blob.bin", noise(300000), zipfile.ZIP_STORED)
    for i in range(1500): z.writestr("demo/pkg/module_with_a_long_name_%05d.py" % i, "", zipfile.ZIP_STORED)
write("far", far); expect("far")
def forced(z):
    with z.open("demo-1.0.dist-info/METADATA", "w", force_zip64=True) as f: f.write(meta.encode())
write("forced64", forced); expect("forced64")
limits = (zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT)
zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 1000, 9
def many(z):
    for i in range(20): z.writestr("demo/m%02d.py" % i, noise(700), zipfile.ZIP_STORED)
    z.writestr("demo-1.0.dist-info/METADATA", meta, zipfile.ZIP_DEFLATED)
write("zip64", many); expect("zip64")
zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = limits
write("comment", small, comment=b"c" * 65535); expect("comment")
def two(z):
    z.writestr("other-2.0.dist-info/METADATA", "Name: other\nVersion: 2.0\n")
    z.writestr("Demo-1.0.dist-info/METADATA", meta)
write("two", two); expect("two", "Demo-1.0.dist-info/METADATA")
path = write("badcrc", lambda z: z.writestr("demo-1.0.dist-info/METADATA", meta, zipfile.ZIP_STORED))
data = bytearray(open(path, "rb").read()); data[100] ^= 0xff; open(path, "wb").write(bytes(data))
write("nometa", lambda z: z.writestr("demo/__init__.py", ""))
open(os.path.join(out, "noise.whl"), "wb").write(noise(5000))
)PY";

fs::path written_cases() {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / "bevenv-remote-zip";
    fs::remove_all(d);
    fs::create_directories(d);
    const auto result = core::run_process({"python3", "-c", kWriter, d.string()});
    REQUIRE(result.exit_code == 0);
    return d;
  }();
  return dir;
}

struct RangeRead {
  std::string text;
  int requests = 0;
  std::uint64_t bytes = 0;
};

// The protocol the transport runs: the last kTailSize bytes, then every range the reader asks for.
core::Expected<RangeRead, std::string> read_by_ranges(const std::string& file,
                                                      std::string_view project) {
  const std::uint64_t size = file.size();
  std::vector<zip::Window> windows;
  RangeRead out;
  zip::ByteRange next{size - std::min<std::uint64_t>(size, zip::kTailSize), size};
  for (int round = 0; round < 6; ++round) {
    REQUIRE(next.begin < next.end);
    REQUIRE(next.end <= size);
    windows.push_back({next.begin, file.substr(next.begin, next.end - next.begin)});
    ++out.requests;
    out.bytes += next.end - next.begin;
    auto step = zip::read_metadata(windows, size, project);
    if (!step) return core::unexpected(step.error());
    if (auto* text = std::get_if<std::string>(&*step)) {
      out.text = *text;
      return out;
    }
    next = std::get<zip::ByteRange>(*step);
  }
  return core::unexpected(std::string("too many ranges"));
}

core::Expected<RangeRead, std::string> read_case(const std::string& name) {
  return read_by_ranges(core::read_file(written_cases() / (name + ".whl")), "demo");
}

std::string expected(const std::string& name) {
  return core::read_file(written_cases() / (name + ".expected"));
}

}  // namespace

TEST_CASE("remote zip: METADATA read by ranges equals zipfile's", "[index][zip]") {
  for (const char* name : {"deflated", "stored", "far", "forced64", "zip64", "comment", "two"}) {
    INFO(name);
    const auto read = read_case(name);
    REQUIRE(read);
    CHECK(read->text == expected(name));
  }
}

TEST_CASE("remote zip: what needs more than the first read asks for it", "[index][zip]") {
  // A small zip is read whole by the first range, and needs no other.
  const auto small = read_case("deflated");
  REQUIRE(small);
  CHECK(small->requests == 1);
  // A directory larger than the first read, and METADATA far from it: three ranges, a
  // fraction of the file.
  const auto far = read_case("far");
  REQUIRE(far);
  CHECK(far->requests == 3);
  CHECK(far->bytes < fs::file_size(written_cases() / "far.whl") / 2);
  // A 64 KiB comment pushes the end record out of the first read: one larger tail.
  const auto comment = read_case("comment");
  REQUIRE(comment);
  CHECK(comment->requests == 2);
}

TEST_CASE("remote zip: broken or foreign archives are errors, not guesses", "[index][zip]") {
  const auto crc = read_case("badcrc");
  REQUIRE_FALSE(crc);
  CHECK(crc.error().find("CRC-32") != std::string::npos);
  const auto none = read_case("nometa");
  REQUIRE_FALSE(none);
  CHECK(none.error().find("METADATA") != std::string::npos);
  const auto noise = read_case("noise");
  REQUIRE_FALSE(noise);
  CHECK(noise.error().find("not a zip") != std::string::npos);
  // Two `.dist-info` directories, neither of them the project's.
  const auto other = read_by_ranges(core::read_file(written_cases() / "two.whl"), "third");
  REQUIRE_FALSE(other);
}

TEST_CASE("remote zip: a cut-short directory is an error at every length", "[index][zip]") {
  const std::string file = core::read_file(written_cases() / "zip64.whl");
  const auto directory = zip::find_directory({{0, file}}, file.size());
  REQUIRE(directory);
  const auto& dir = std::get<zip::Directory>(*directory);
  const std::string_view bytes = std::string_view(file).substr(dir.offset, dir.size);
  REQUIRE(zip::parse_directory(bytes, dir.entries));
  for (std::size_t n = 0; n < bytes.size(); n += 7)
    CHECK_FALSE(zip::parse_directory(bytes.substr(0, n), dir.entries));
}
