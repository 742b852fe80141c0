// bevenv-probe's fatbin reader (probes/tool/fatbin.cpp) against shared objects nvcc builds here
// with known -gencode lists, checked with NVIDIA's cuobjdump where one is installed; and against
// the same files damaged in the ways a truncated download or a hostile file would be.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fatbin.hpp"
#include "probe_runner.hpp"

namespace fatbin = bevenv::probe_tool::fatbin;
using namespace bevenv::probes::test;

namespace {

using Bytes = std::vector<std::uint8_t>;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string tool_path(const std::string& name) {
  if (file_exists("/usr/local/cuda/bin/" + name)) return "/usr/local/cuda/bin/" + name;
  const auto found = run_command("command -v " + name);
  if (found.exit_code == 0) return first_line(found.out);
  // The probe tests' fixture installs NVIDIA's cuobjdump wheel (make_probe_venvs.sh).
  const auto wheel = run_command("ls " + shell_quote(BEVENV_PROBE_VENVS) +
                                 "/cudatools/lib/python3*/site-packages/nvidia/cu*/bin/" + name +
                                 " 2>/dev/null | head -1");
  return first_line(wheel.out);
}

struct Built {
  std::string dir;
  std::string error;  // nvcc failed; empty when every library was built
  bool have_nvcc = false;
};

// The libraries every test reads, built once: plain and compressed (sm_75 and sm_90 SASS plus
// compute_90 PTX), arch-specific variants, separate compilation (__nv_relfatbin), a bare fatbin.
const Built& built() {
  static const Built libraries = [] {
    Built out;
    const std::string nvcc = tool_path("nvcc");
    if (nvcc.empty()) return out;
    out.have_nvcc = true;
    std::string pattern = "/tmp/bevenv-fatbin-test-XXXXXX";
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    out.dir = pattern;
    std::ofstream(out.dir + "/k.cu")
        << "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n";
    const std::string common =
        " -gencode arch=compute_75,code=sm_75"
        " -gencode arch=compute_90,code=sm_90"
        " -gencode arch=compute_90,code=compute_90";
    const std::vector<std::string> commands{
        "-shared -Xcompiler -fPIC" + common + " -o plain.so",
        "-shared -Xcompiler -fPIC" + common + " -Xfatbin -compress-all -o compressed.so",
        "-shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a"
        " -gencode arch=compute_120,code=sm_120 -gencode arch=compute_120,code=compute_120"
        " -o variants.so",
        "-shared -rdc=true -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 -o rdc.so",
        "-fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80"
        " -o bare.fatbin",
    };
    for (const auto& arguments : commands) {
      const auto result = run_command("cd " + shell_quote(out.dir) + " && " + shell_quote(nvcc) +
                                      " " + arguments + " k.cu 2>&1");
      if (result.exit_code != 0) out.error += arguments + ": " + result.out;
    }
    return out;
  }();
  return libraries;
}

// False (with a warning) where this machine has no nvcc: the tests that need one stop there.
bool have_libraries() {
  if (!built().have_nvcc) {
    WARN("no nvcc here (/usr/local/cuda/bin or PATH): the fatbin oracle tests do not run");
    return false;
  }
  INFO(built().error);
  REQUIRE(built().error.empty());
  return true;
}

std::string lib(const std::string& name) { return built().dir + "/" + name; }

Bytes slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// What cuobjdump lists: `ELF file 1: plain.1.sm_90.cubin`, `PTX file 1: plain.1.sm_90.ptx`.
std::set<std::string> cuobjdump_archs(const std::string& tool, const std::string& flag,
                                      const std::string& path, const std::string& prefix) {
  const auto result =
      run_command(shell_quote(tool) + " " + flag + " " + shell_quote(path) + " 2>/dev/null");
  std::set<std::string> out;
  const std::regex line(R"(\.sm_([0-9]+[a-z]?)\.(cubin|ptx)$)");
  std::istringstream lines(result.out);
  for (std::string text; std::getline(lines, text);) {
    std::smatch match;
    if (std::regex_search(text, match, line)) out.insert(prefix + match[1].str());
  }
  return out;
}

std::set<std::string> as_set(const std::vector<std::string>& list) {
  return {list.begin(), list.end()};
}

std::uint64_t u64_at(const Bytes& bytes, std::size_t at) {
  std::uint64_t value = 0;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

void put_u64(Bytes& bytes, std::size_t at, std::uint64_t value) {
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

// Where the .nv_fatbin section's header lies in an ELF64 image (the test's own reading of
// the format, kept to what these well-formed nvcc outputs need).
std::size_t fatbin_section_header(const Bytes& elf) {
  const std::size_t table = u64_at(elf, 0x28);
  std::uint16_t count = 0;
  std::uint16_t names = 0;
  std::memcpy(&count, elf.data() + 0x3c, 2);
  std::memcpy(&names, elf.data() + 0x3e, 2);
  const std::size_t names_offset = u64_at(elf, table + names * 64U + 24);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t name = 0;
    std::memcpy(&name, elf.data() + table + i * 64 + 0, 4);
    const char* text = reinterpret_cast<const char*>(elf.data() + names_offset + name);
    if (std::strcmp(text, ".nv_fatbin") == 0) return table + i * 64;
  }
  FAIL("no .nv_fatbin in the test library");
  return 0;
}

// A 64-byte file that is zeros after a little-endian ELF identification of class
// `elf_class` (1: 32-bit, 2: 64-bit).
Bytes elf_ident(std::uint8_t elf_class) {
  Bytes bytes(64, 0);
  const std::uint8_t ident[6] = {0x7f, 'E', 'L', 'F', elf_class, 1};
  std::memcpy(bytes.data(), ident, sizeof ident);
  return bytes;
}

fatbin::Archs read(const Bytes& bytes) {
  return fatbin::read_archs_from_memory(bytes.data(), bytes.size());
}

}  // namespace

TEST_CASE("the reader lists the SASS and PTX nvcc was asked for", "[probes][fatbin]") {
  if (!have_libraries()) return;
  for (const char* name : {"plain.so", "compressed.so"}) {
    INFO(name);
    const auto archs = fatbin::read_archs_from_file(lib(name));
    INFO(archs.error);
    REQUIRE(archs.ok());
    CHECK(archs.sass == std::vector<std::string>{"sm_75", "sm_90"});
    CHECK(archs.ptx == std::vector<std::string>{"compute_90"});
    CHECK(archs.sections == std::vector<std::string>{".nv_fatbin"});
    CHECK(archs.entries >= 3);
  }
  // -compress-all compresses the SASS too; the default compresses only the PTX.
  const auto plain = fatbin::read_archs_from_file(lib("plain.so"));
  const auto compressed = fatbin::read_archs_from_file(lib("compressed.so"));
  CHECK(compressed.compressed == compressed.entries);
  CHECK(plain.compressed < plain.entries);

  const auto variants = fatbin::read_archs_from_file(lib("variants.so"));
  INFO(variants.error);
  CHECK(variants.sass == std::vector<std::string>{"sm_90a", "sm_120"});  // by number, not text
  CHECK(variants.ptx == std::vector<std::string>{"compute_120"});

  const auto rdc = fatbin::read_archs_from_file(lib("rdc.so"));
  CHECK(rdc.sass == std::vector<std::string>{"sm_80"});
  CHECK(std::set<std::string>(rdc.sections.begin(), rdc.sections.end()) ==
        std::set<std::string>{".nv_fatbin", "__nv_relfatbin"});

  const Bytes bare = slurp(lib("bare.fatbin"));
  const auto raw = fatbin::read_fatbin_from_memory(bare.data(), bare.size());
  CHECK(raw.sass == std::vector<std::string>{"sm_80"});
  CHECK(raw.ptx == std::vector<std::string>{"compute_80"});
  CHECK(read(bare).error == "not an ELF file");
}

TEST_CASE("the reader agrees with cuobjdump --list-elf and --list-ptx", "[probes][fatbin]") {
  if (!have_libraries()) return;
  const std::string cuobjdump = tool_path("cuobjdump");
  if (cuobjdump.empty()) {
    WARN("no cuobjdump (CUDA toolkit or the probe venvs' cudatools): only nvcc's lists checked");
    return;
  }
  for (const char* name : {"plain.so", "compressed.so", "variants.so", "rdc.so"}) {
    INFO(name);
    const auto archs = fatbin::read_archs_from_file(lib(name));
    REQUIRE(archs.ok());
    CHECK(as_set(archs.sass) == cuobjdump_archs(cuobjdump, "--list-elf", lib(name), "sm_"));
    CHECK(as_set(archs.ptx) == cuobjdump_archs(cuobjdump, "--list-ptx", lib(name), "compute_"));
  }
}

TEST_CASE("files without device code, or not ELF64 at all, give empty lists or an error",
          "[probes][fatbin]") {
  const auto ls = fatbin::read_archs_from_file("/bin/sh");
  CHECK(ls.ok());
  CHECK(ls.sass.empty());
  CHECK(ls.sections.empty());
  CHECK(fatbin::read_archs_from_file("/nonexistent/libtorch_cuda.so").error.find("cannot open") ==
        0);
  CHECK(fatbin::read_archs_from_file("/etc/hostname").error == "not an ELF file");
  CHECK(read(elf_ident(1)).error == "not a little-endian 64-bit ELF file");
  Bytes no_sections = elf_ident(2);
  CHECK(read(no_sections).error == "the ELF file has no section headers");
  put_u64(no_sections, 0x28, 0xffffffffffffff00ULL);  // section headers past any file
  no_sections[0x3a] = 64;
  CHECK_FALSE(read(no_sections).ok());
  CHECK_FALSE(read({}).ok());
}

TEST_CASE("a truncated or damaged fatbin is an error value, never a crash or a hang",
          "[probes][fatbin]") {
  if (!have_libraries()) return;
  const Bytes good = slurp(lib("plain.so"));
  const std::size_t header = fatbin_section_header(good);
  const std::size_t start = u64_at(good, header + 24);
  const std::uint64_t size = u64_at(good, header + 32);
  REQUIRE(read(good).ok());

  // The section cut at every length: only the container boundaries read cleanly.
  std::size_t clean = 0;
  for (std::uint64_t cut = 0; cut < size; ++cut) {
    Bytes copy = good;
    put_u64(copy, header + 32, cut);
    const auto archs = read(copy);
    if (archs.ok()) ++clean;
  }
  CHECK(clean >= 1);
  CHECK(clean <= 3);  // empty, after the first container, perhaps after padding

  // The bare fatbin cut anywhere is an error unless cut at its end.
  const Bytes bare = slurp(lib("bare.fatbin"));
  for (std::size_t cut = 1; cut < bare.size(); ++cut) {
    CHECK_FALSE(fatbin::read_fatbin_from_memory(bare.data(), cut).ok());
  }

  // `width` bytes of little-endian `value` written at `at` of a copy.
  const auto damaged = [&](std::size_t at, std::uint64_t value, std::size_t width) {
    Bytes copy = good;
    for (std::size_t i = 0; i < width; ++i) {
      copy[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
    }
    return read(copy);
  };
  const std::size_t entry = start + 16;
  const auto error_of = [&](std::size_t at, std::uint64_t value, std::size_t width) {
    return damaged(at, value, width).error;
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of(start + 8, ~0ULL, 8), Contains("runs past its section"));
  CHECK_THAT(error_of(start, 0x12345678, 4), Contains("no fatbin header"));
  CHECK_THAT(error_of(start + 4, 2, 2), Contains("has version 2"));
  CHECK_THAT(error_of(entry + 4, 0, 4), Contains("header size of 0"));
  CHECK_THAT(error_of(entry + 4, 0xffffffff, 4), Contains("header size of 4294967295"));
  CHECK_THAT(error_of(entry + 8, ~0ULL - 8, 8), Contains("runs past its container"));
  CHECK_THAT(error_of(entry + 28, 0, 4), Contains("names architecture 0"));
  CHECK_THAT(error_of(header + 24, ~0ULL - 4, 8), Contains("past the end"));
  CHECK_THAT(error_of(0x3c, 0xfff0, 2), Contains("run past the end"));  // too many sections
  CHECK_THAT(error_of(0x3e, 0xfff0, 2), Contains("section-name table"));

  // Every byte of the ELF header and the fatbin headers flipped: an answer each time.
  for (std::size_t at = 0; at < 64 + 128; ++at) {
    Bytes copy = good;
    const std::size_t target = at < 64 ? at : start + (at - 64);
    copy[target] = static_cast<std::uint8_t>(copy[target] ^ 0xff);
    (void)read(copy);
  }
}
