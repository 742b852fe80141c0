#pragma once
// Which GPU architectures a CUDA shared object carries, read from the headers of its fatbinary
// (the `.nv_fatbin` section) instead of loading it: torch's arch list without `import torch`,
// and the arch list of compiled ops (mmcv, mmdet3d) that no Python API reports at all.
// Only headers are read, through a small window, so a 1 GB libtorch_cuda.so costs a few
// thousand small reads; every size in the file is checked before it is used.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "elf_file.hpp"

namespace bevenv::probe_tool::fatbin {

using ByteSource = elf::ByteSource;

struct Archs {
  std::string error;                  // empty when the file was read to the end
  std::vector<std::string> sass;      // "sm_75", "sm_90a": sorted by number, unique
  std::vector<std::string> ptx;       // "compute_90"
  std::vector<std::string> sections;  // the fatbin sections found (none: no device code)
  // Architecture ("sm_90", "compute_90") -> how many containers carry it.
  std::map<std::string, std::size_t> containers_with;
  std::size_t containers = 0;
  std::size_t entries = 0;     // every entry, SASS, PTX and kinds this reader does not know
  std::size_t compressed = 0;  // entries whose payload is compressed (not read either way)

  bool ok() const { return error.empty(); }
};

// The architectures of an ELF64 little-endian file; `error` says why when it is not one or
// is damaged. A file without a fatbin section is fine: it has no device code.
Archs read_archs(ByteSource& source);
Archs read_archs_from_file(const std::string& path);
Archs read_archs_from_memory(const std::uint8_t* data, std::size_t size);

// The same walk over bytes that are one fatbin section as a whole: `nvcc -fatbin` output.
Archs read_fatbin(ByteSource& source);
Archs read_fatbin_from_memory(const std::uint8_t* data, std::size_t size);

}  // namespace bevenv::probe_tool::fatbin
