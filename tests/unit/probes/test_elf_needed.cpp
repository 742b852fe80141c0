// bevenv-probe's dynamic-section reader (probes/tool/elf_needed.cpp) and loader walk
// (needed_walk.cpp) against small libraries the system compiler builds here: `readelf -d` is the
// oracle for what the files say, this test's own dlopen for what glibc's loader finds; and the
// reader against truncated, damaged and hostile files.
#include <dlfcn.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "elf_needed.hpp"
#include "needed_walk.hpp"
#include "probe_runner.hpp"

namespace elf = bevenv::probe_tool::elf;
namespace needed = bevenv::probe_tool::needed;
using namespace bevenv::probes::test;

namespace {

using Bytes = std::vector<std::uint8_t>;

std::string temp_dir() {
  std::string pattern = "/tmp/bevenv-elf-needed-test-XXXXXX";
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

// Builds `path` (its soname: its file name) from a one-function C file, linked against the
// libraries `deps` (paths) with `flags`; --no-as-needed keeps every one as a DT_NEEDED.
void build(const std::string& path, const std::vector<std::string>& deps,
           const std::string& flags = "") {
  const std::string source = path + ".c";
  REQUIRE(run_command("mkdir -p \"$(dirname " + shell_quote(path) + ")\"").exit_code == 0);
  std::ofstream(source) << "int f(void) { return 1; }\n";
  std::string command = "cc -shared -fPIC -o " + shell_quote(path) + " " + shell_quote(source) +
                        " -Wl,-soname," + shell_quote(path.substr(path.rfind('/') + 1)) + " " +
                        flags + " -Wl,--no-as-needed";
  for (const auto& dep : deps) command += " " + shell_quote(dep);
  const auto result = run_command(command + " 2>&1");
  INFO(command << "\n" << result.out);
  REQUIRE(result.exit_code == 0);
}

void remove_file(const std::string& path) { REQUIRE(std::remove(path.c_str()) == 0); }

struct Oracle {
  std::vector<std::string> needed;
  std::string soname;
  std::string rpath;  // "-" when there is none
  std::string runpath;
};

// What `readelf -d` prints: `(NEEDED)  Shared library: [libc.so.6]`.
Oracle readelf(const std::string& path) {
  const auto result = run_command("LC_ALL=C readelf -dW " + shell_quote(path) + " 2>/dev/null");
  Oracle out{{}, "", "-", "-"};
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    const auto open = line.find('[');
    const auto close = line.rfind(']');
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string value = line.substr(open + 1, close - open - 1);
    if (line.find("(NEEDED)") != std::string::npos) out.needed.push_back(value);
    if (line.find("(SONAME)") != std::string::npos) out.soname = value;
    if (line.find("(RPATH)") != std::string::npos) out.rpath = value;
    if (line.find("(RUNPATH)") != std::string::npos) out.runpath = value;
  }
  return out;
}

void check_against_readelf(const std::string& path) {
  INFO(path);
  const auto ours = elf::read_dynamic_from_file(path);
  REQUIRE(ours.ok());
  const Oracle theirs = readelf(path);
  CHECK(ours.needed == theirs.needed);
  CHECK(ours.soname == theirs.soname);
  CHECK(ours.rpath.value_or("-") == theirs.rpath);
  CHECK(ours.runpath.value_or("-") == theirs.runpath);
}

// A walk with only the given directories besides the objects' own: no LD_LIBRARY_PATH of this
// process, the system's directories for libc.
needed::SearchPaths bare_paths() {
  needed::SearchPaths paths = needed::process_search_paths();
  paths.library_path.clear();
  paths.preloaded.clear();
  return paths;
}

std::string dlopen_error(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) return "";
  const char* error = ::dlerror();
  return error == nullptr ? "?" : error;
}

// The walk from `top` misses one library, `name`, which `needed_by` asks for, and the real
// loader refuses `top` saying `dlopen_says`.
void check_one_missing(const std::string& top, const std::string& name,
                       const std::string& needed_by, const std::string& dlopen_says) {
  const auto walked = needed::walk({top}, bare_paths());
  REQUIRE(walked.missing.size() == 1);
  CHECK(walked.missing[0].name == name);
  CHECK(walked.missing[0].needed_by == needed_by);
  CHECK_THAT(dlopen_error(top), Catch::Contains(dlopen_says));
}

Bytes slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

elf::Dynamic read(const Bytes& bytes) {
  return elf::read_dynamic_from_memory(bytes.data(), bytes.size());
}

std::uint64_t get(const Bytes& bytes, std::size_t at, std::size_t width) {
  std::uint64_t value = 0;
  std::memcpy(&value, bytes.data() + at, width);
  return value;
}

void put(Bytes& bytes, std::size_t at, std::uint64_t value, std::size_t width) {
  std::memcpy(bytes.data() + at, &value, width);
}

// The program header of PT_DYNAMIC, and the file offset of its first entry of `tag`: the test's
// own reading of the format, enough for the files cc writes.
std::size_t dynamic_header(const Bytes& bytes) {
  const std::size_t table = get(bytes, 0x20, 8);
  for (std::size_t i = 0; i < get(bytes, 0x38, 2); ++i) {
    if (get(bytes, table + i * 56, 4) == 2) return table + i * 56;
  }
  FAIL("no PT_DYNAMIC");
  return 0;
}

std::size_t dynamic_entry(const Bytes& bytes, std::uint64_t tag) {
  const std::size_t start = get(bytes, dynamic_header(bytes) + 8, 8);
  for (std::size_t at = start; get(bytes, at, 8) != 0; at += 16) {
    if (get(bytes, at, 8) == tag) return at;
  }
  FAIL("no dynamic entry " << tag);
  return 0;
}

}  // namespace

TEST_CASE("DT_NEEDED, DT_SONAME, DT_RPATH and DT_RUNPATH read as readelf -d reads them",
          "[probes][elf]") {
  const std::string dir = temp_dir();
  build(dir + "/sub/libB.so", {});
  build(dir + "/libA.so", {dir + "/sub/libB.so"},
        "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/sub'");
  build(dir + "/libA_rpath.so", {dir + "/sub/libB.so"},
        "-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/sub:/opt/x'");
  build(dir + "/stub/libnothere.so", {});
  build(dir + "/libC.so", {dir + "/stub/libnothere.so", dir + "/sub/libB.so"});

  const auto a = elf::read_dynamic_from_file(dir + "/libA.so");
  REQUIRE(a.ok());
  CHECK(a.soname == "libA.so");
  CHECK(a.runpath == std::optional<std::string>("$ORIGIN/sub"));
  CHECK_FALSE(a.rpath.has_value());
  CHECK(a.machine == 62);  // EM_X86_64 where the tests run
  const auto a_rpath = elf::read_dynamic_from_file(dir + "/libA_rpath.so");
  CHECK(a_rpath.rpath == std::optional<std::string>("$ORIGIN/sub:/opt/x"));
  CHECK_FALSE(a_rpath.runpath.has_value());
  for (const char* name : {"/sub/libB.so", "/libA.so", "/libA_rpath.so", "/libC.so"}) {
    check_against_readelf(dir + name);
  }
  // The system's own libraries: torch's neighbours (libstdc++, libgcc_s) and whatever is there.
  const auto system = run_command(
      "ls /usr/lib/x86_64-linux-gnu/lib*.so.* /usr/lib64/lib*.so.* 2>/dev/null | head -60");
  std::istringstream lines(system.out);
  std::size_t compared = 0;
  for (std::string path; std::getline(lines, path);) {
    if (run_command("test -f " + shell_quote(path) + " && test ! -L " + shell_quote(path))
            .exit_code != 0) {
      continue;
    }
    check_against_readelf(path);
    ++compared;
  }
  CHECK(compared > 0);
  // A program reads as a library does.
  check_against_readelf("/bin/sh");
}

TEST_CASE("the walk finds what the loader finds and misses what it misses", "[probes][elf]") {
  const std::string dir = temp_dir();
  build(dir + "/sub/libwB.so", {});
  build(dir + "/libwA.so", {dir + "/sub/libwB.so"},
        "-Wl,--enable-new-dtags -Wl,-rpath,'${ORIGIN}/sub'");
  build(dir + "/stub/libwnothere.so", {});
  build(dir + "/libwC.so", {dir + "/sub/libwB.so", dir + "/stub/libwnothere.so"},
        "-Wl,-rpath,'$ORIGIN/sub'");
  remove_file(dir + "/stub/libwnothere.so");

  const auto found = needed::walk({dir + "/libwA.so"}, bare_paths());
  CHECK(found.missing.empty());
  CHECK(found.checked == 2);
  CHECK(found.found.at("libwB.so") == dir + "/sub/libwB.so");
  CHECK_FALSE(found.found.contains("libc.so.6"));  // glibc's own: never looked for
  CHECK(dlopen_error(dir + "/libwA.so").empty());

  check_one_missing(dir + "/libwC.so", "libwnothere.so", dir + "/libwC.so",
                    "libwnothere.so: cannot open shared object file: No such file or directory");
}

TEST_CASE("DT_RPATH serves the objects loaded below it, DT_RUNPATH only its own", "[probes][elf]") {
  const std::string dir = temp_dir();
  // top (RPATH deps) -> mid (no path of its own, in deps) -> leaf (in deps).
  build(dir + "/deps/libleaf_r.so", {});
  build(dir + "/deps/libmid_r.so", {dir + "/deps/libleaf_r.so"});
  build(dir + "/libtop_r.so", {dir + "/deps/libmid_r.so"},
        "-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/deps'");
  // The same with RUNPATH: mid finds no leaf.
  build(dir + "/deps/libleaf_u.so", {});
  build(dir + "/deps/libmid_u.so", {dir + "/deps/libleaf_u.so"});
  build(dir + "/libtop_u.so", {dir + "/deps/libmid_u.so"},
        "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/deps'");

  const auto inherited = needed::walk({dir + "/libtop_r.so"}, bare_paths());
  CHECK(inherited.missing.empty());
  CHECK(inherited.checked == 3);
  CHECK(dlopen_error(dir + "/libtop_r.so").empty());

  check_one_missing(dir + "/libtop_u.so", "libleaf_u.so", dir + "/deps/libmid_u.so",
                    "libleaf_u.so: cannot open shared object file");
}

TEST_CASE("the search order: RPATH, LD_LIBRARY_PATH, RUNPATH, the system, the fallback",
          "[probes][elf]") {
  const std::string dir = temp_dir();
  for (const char* folder : {"/rpath", "/llp", "/runpath", "/fallback"}) {
    build(dir + folder + "/libo.so", {});
  }
  build(dir + "/fallback/libpre.so", {});
  build(dir + "/with_rpath.so", {dir + "/rpath/libo.so"},
        "-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/rpath'");
  build(dir + "/with_runpath.so", {dir + "/runpath/libo.so", dir + "/fallback/libpre.so"},
        "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/runpath'");
  needed::SearchPaths paths = bare_paths();
  paths.library_path = {dir + "/nothing-here", dir + "/llp"};
  paths.fallback = {dir + "/fallback"};

  CHECK(needed::walk({dir + "/with_rpath.so"}, paths).found.at("libo.so") ==
        dir + "/rpath/libo.so");
  const auto runpath = needed::walk({dir + "/with_runpath.so"}, paths);
  CHECK(runpath.found.at("libo.so") == dir + "/llp/libo.so");
  CHECK(runpath.missing.empty());
  CHECK(runpath.found.at("libpre.so") == dir + "/fallback/libpre.so");
  CHECK(runpath.preloaded == std::vector<std::string>{"libpre.so"});
  paths.library_path.clear();
  CHECK(needed::walk({dir + "/with_runpath.so"}, paths).found.at("libo.so") ==
        dir + "/runpath/libo.so");

  // An object of another class where the loader looks first is passed over, as it does.
  std::ofstream(dir + "/llp/libo32.so", std::ios::binary) << std::string(
                                                                 "\x7f"
                                                                 "ELF\x01\x01\x01",
                                                                 7)
                                                          << std::string(57, '\0');
  build(dir + "/runpath/libo32.so", {});
  build(dir + "/with_32.so", {dir + "/runpath/libo32.so"},
        "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/runpath'");
  paths.library_path = {dir + "/llp"};
  CHECK(needed::walk({dir + "/with_32.so"}, paths).found.at("libo32.so") ==
        dir + "/runpath/libo32.so");
}

TEST_CASE("each object once, a name already loaded is not looked for, the walk is bounded",
          "[probes][elf]") {
  const std::string dir = temp_dir();
  build(dir + "/deps/libshared.so", {});
  build(dir + "/deps/libleft.so", {dir + "/deps/libshared.so"}, "-Wl,-rpath,'$ORIGIN'");
  build(dir + "/deps/libright.so", {dir + "/deps/libshared.so"}, "-Wl,-rpath,'$ORIGIN'");
  build(dir + "/libroot.so", {dir + "/deps/libleft.so", dir + "/deps/libright.so"},
        "-Wl,-rpath,'$ORIGIN/deps'");
  const auto walk = needed::walk({dir + "/libroot.so"}, bare_paths());
  CHECK(walk.checked == 4);
  CHECK(walk.missing.empty());
  CHECK_FALSE(walk.truncated);
  const auto bounded = needed::walk({dir + "/libroot.so"}, bare_paths(), 2);
  CHECK(bounded.checked == 2);
  CHECK(bounded.truncated);
  CHECK(bounded.missing.empty());  // not reached is not missing
  // Two roots that are one file: read once.
  CHECK(needed::walk({dir + "/libroot.so", dir + "/deps/../libroot.so"}, bare_paths()).checked ==
        4);
  // A root that cannot be read says why.
  const auto absent = needed::walk({dir + "/nothing.so"}, bare_paths());
  REQUIRE(absent.unreadable.size() == 1);
  CHECK(absent.unreadable[0].error.find("cannot open") == 0);
}

TEST_CASE("ld.so.conf: its directories and includes, in order, each once", "[probes][elf]") {
  const std::string dir = temp_dir();
  REQUIRE(run_command("mkdir -p " + shell_quote(dir + "/conf.d")).exit_code == 0);
  std::ofstream(dir + "/ld.so.conf") << "# comment\n/opt/first/\ninclude conf.d/*.conf\n"
                                     << "hwcap 1 nosegneg\n/opt/old=libc5\n  \n/opt/first\n"
                                     << "include " << dir << "/ld.so.conf\n";  // a cycle
  std::ofstream(dir + "/conf.d/b.conf") << "/opt/b # trailing comment\n";
  std::ofstream(dir + "/conf.d/a.conf") << "/opt/a\n";
  std::ofstream(dir + "/conf.d/not-included.txt") << "/opt/no\n";
  CHECK(needed::ld_so_conf_dirs(dir + "/ld.so.conf") ==
        std::vector<std::string>{"/opt/first", "/opt/a", "/opt/b", "/opt/old"});
  const auto paths = needed::process_search_paths(dir + "/ld.so.conf");
  REQUIRE(paths.system.size() > 4);
  CHECK(paths.system[0] == "/opt/first");
  CHECK(std::find(paths.system.begin(), paths.system.end(), "/usr/lib") != paths.system.end());
  CHECK(needed::is_skipped("libc.so.6"));
  CHECK(needed::is_skipped("ld-linux-x86-64.so.2"));
  CHECK(needed::is_skipped("libcuda.so.1"));
  CHECK_FALSE(needed::is_skipped("libcudart.so.12"));
}

TEST_CASE("truncated, damaged and hostile files are a clean error", "[probes][elf]") {
  const std::string dir = temp_dir();
  build(dir + "/deps/libx.so", {});
  build(dir + "/liby.so", {dir + "/deps/libx.so"}, "-Wl,-rpath,'$ORIGIN/deps'");
  const Bytes good = slurp(dir + "/liby.so");
  REQUIRE(read(good).ok());
  REQUIRE(read(good).needed == std::vector<std::string>{"libx.so", "libc.so.6"});

  // Cut anywhere: an error, or (past the last byte it reads) the same answer.
  for (std::size_t cut = 0; cut < good.size(); ++cut) {
    const Bytes copy(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
    const auto dynamic = read(copy);
    if (dynamic.ok()) CHECK(dynamic.needed == read(good).needed);
  }
  CHECK(read({}).error == "not an ELF file");
  CHECK(elf::read_dynamic_from_file("/etc/hostname").error == "not an ELF file");
  CHECK(elf::read_dynamic_from_file(dir + "/nothing.so").error.find("cannot open") == 0);
  CHECK(elf::read_dynamic_from_file(dir).error.find("not a regular file") != std::string::npos);

  const auto damaged = [&](std::size_t at, std::uint64_t value, std::size_t width) {
    Bytes copy = good;
    put(copy, at, value, width);
    return read(copy);
  };
  const std::size_t phdr = dynamic_header(good);
  CHECK_FALSE(damaged(0x38, 0xffff, 2).ok());               // e_phnum past any file
  CHECK_FALSE(damaged(0x36, 8, 2).ok());                    // e_phentsize too small
  CHECK_FALSE(damaged(0x20, ~0ULL - 10, 8).ok());           // e_phoff wraps around
  CHECK_FALSE(damaged(phdr + 8, good.size() - 8, 8).ok());  // PT_DYNAMIC past the end
  CHECK_FALSE(damaged(phdr + 32, ~0ULL, 8).ok());           // its size wraps around
  const std::size_t strtab = dynamic_entry(good, 5);
  const std::size_t strsz = dynamic_entry(good, 10);
  const std::size_t first_needed = dynamic_entry(good, 1);
  CHECK_FALSE(damaged(strtab + 8, ~0ULL - 4, 8).ok());         // DT_STRTAB in no segment
  CHECK_FALSE(damaged(strsz + 8, ~0ULL, 8).ok());              // DT_STRSZ of the whole space
  CHECK_FALSE(damaged(first_needed + 8, 1ULL << 40, 8).ok());  // a name past DT_STRSZ
  CHECK_FALSE(damaged(strtab, 0, 8).ok());                     // no DT_STRTAB left
  // A string table cut before the names' terminators.
  const auto cut_table = damaged(strsz + 8, get(good, first_needed + 8, 8) + 2, 8);
  CHECK(cut_table.error.find("no terminator") != std::string::npos);
  // 32-bit, big-endian: not this reader's.
  CHECK(damaged(4, 1, 1).error == "not a little-endian 64-bit ELF file");
  CHECK(damaged(5, 2, 1).error == "not a little-endian 64-bit ELF file");
  // Garbage after a valid ELF header, at several seeds: an answer or an error, never a crash.
  Bytes garbage = good;
  std::uint32_t state = 12345;
  for (int round = 0; round < 200; ++round) {
    for (std::size_t i = 64; i < std::min<std::size_t>(garbage.size(), 4096); ++i) {
      state = state * 1103515245U + 12345U;
      if ((state >> 24U) < 8) garbage[i] = static_cast<std::uint8_t>(state >> 16U);
    }
    const auto dynamic = read(garbage);
    CHECK(dynamic.needed.size() <= garbage.size() / 16);
  }
}
