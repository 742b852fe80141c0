#pragma once
// The dynamic section of an ELF64 shared object: the libraries it needs (DT_NEEDED) and where
// the loader looks for them (DT_RPATH, DT_RUNPATH), read as the loader reads them (the
// PT_DYNAMIC segment, DT_STRTAB mapped through PT_LOAD) so that bevenv-probe can tell which
// library `import torch` would fail to load without loading torch (libtorch_cuda.so is 1 GB).
// Only the ELF and program headers, the dynamic entries and the strings they name are read;
// every offset and size is checked against the file first.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "elf_file.hpp"

namespace bevenv::probe_tool::elf {

struct Dynamic {
  std::string error;                 // empty when the dynamic section was read to its end
  std::uint16_t machine = 0;         // e_machine; 0 when the file is not ELF64 little-endian at all
  std::vector<std::string> needed;   // DT_NEEDED, in the file's order
  std::string soname;                // DT_SONAME, empty when there is none
  std::optional<std::string> rpath;  // DT_RPATH as written ("$ORIGIN/../lib:/opt/x")
  std::optional<std::string> runpath;  // DT_RUNPATH
  bool nodeflib = false;  // DF_1_NODEFLIB: the loader skips the default directories for it

  bool ok() const { return error.empty(); }
};

// A file without PT_DYNAMIC (a static executable) is fine: it needs nothing.
Dynamic read_dynamic(ByteSource& source);
Dynamic read_dynamic_from_file(const std::string& path);
Dynamic read_dynamic_from_memory(const std::uint8_t* data, std::size_t size);

}  // namespace bevenv::probe_tool::elf
