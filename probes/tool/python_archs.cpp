// The architectures of torch and of the compiled ops, which probe_env.py leaves to this tool:
// it names the libraries (torch's `cuda_libraries`, `ops_archs[].file`) and bevenv-probe reads
// their fatbins (fatbin.cpp), so that the probe learns them without `import torch`.
#include <chrono>
#include <set>
#include <tuple>

#include "fatbin.hpp"
#include "probe_tool.hpp"

namespace bevenv::probe_tool {
namespace {

// A report names a few libraries; a damaged one naming thousands is not read past this.
constexpr std::size_t kMaxLibraries = 256;

// torch.cuda.get_arch_list()'s order: SASS by number, then PTX by number.
struct ArchOrder {
  bool operator()(const std::string& a, const std::string& b) const { return key(a) < key(b); }
  static std::tuple<bool, unsigned long, std::string> key(const std::string& name) {
    const bool ptx = name.rfind("compute_", 0) == 0;
    const std::string rest = name.substr(ptx ? 8 : 3);
    std::size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    const unsigned long number = digits == 0 ? 0 : std::stoul(rest.substr(0, digits));
    return {ptx, number, rest.substr(digits)};
  }
};

using ArchSet = std::set<std::string, ArchOrder>;

struct Timed {
  fatbin::Archs archs;
  double ms = 0;
};

Timed read_timed(const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  Timed out{fatbin::read_archs_from_file(path), 0};
  out.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// What one library's walk says, as the report spells it.
json describe(const std::string& path, const Timed& read) {
  json out{{"file", path},
           {"sass", read.archs.sass},
           {"ptx", read.archs.ptx},
           {"containers", read.archs.containers},
           {"entries", read.archs.entries},
           {"ms", read.ms}};
  if (!read.archs.ok()) out["error"] = read.archs.error;
  return out;
}

// A library's main architectures: those in at least half its containers. torch's own kernels
// are each built for the whole TORCH_CUDA_ARCH_LIST; a few bundled kernels carry extra ones
// (libtorch_cuda.so 2.9.1: sm_90a in 4 of 397 containers, sm_89 in 1), which
// get_arch_list() does not name and which do not make torch run on such a GPU.
void split_archs(const fatbin::Archs& archs, ArchSet& listed, ArchSet& extra) {
  for (const auto& list : {archs.sass, archs.ptx}) {
    for (const auto& name : list) {
      const auto found = archs.containers_with.find(name);
      const std::size_t count = found == archs.containers_with.end() ? 0 : found->second;
      (count * 2 >= archs.containers ? listed : extra).insert(name);
    }
  }
}

void torch_archs(json& torch) {
  if (!torch.is_object() || torch.value("source", "") != "files") return;
  ArchSet listed;
  ArchSet extra;
  json sources = json::array();
  bool any_read = false;
  for (const auto& path : strings_of(torch.value("cuda_libraries", json::array()), kMaxLibraries)) {
    const Timed read = read_timed(path);
    sources.push_back(describe(path, read));
    if (!read.archs.ok()) continue;
    any_read = true;
    split_archs(read.archs, listed, extra);
  }
  for (const auto& name : listed) extra.erase(name);
  torch["arch_sources"] = sources;
  // No library read: no list, so doctor's arch check says nothing rather than "no kernels".
  // No CUDA library at all (a CPU build): the empty list `import torch` gives there too.
  if (!any_read && !sources.empty()) return;
  torch["arch_list"] = std::vector<std::string>(listed.begin(), listed.end());
  torch["arch_extra"] = std::vector<std::string>(extra.begin(), extra.end());
}

void ops_archs(json& ops) {
  if (!ops.is_array()) return;
  std::size_t read_count = 0;
  for (auto& op : ops) {
    if (!op.is_object() || !op.contains("file") || !op["file"].is_string()) continue;
    if (++read_count > kMaxLibraries) {
      op["error"] = "not read: more than 256 op libraries";
      continue;
    }
    const std::string path = op["file"].get<std::string>();
    const json described = describe(path, read_timed(path));
    for (const auto& [key, value] : described.items()) op[key] = value;
  }
}

}  // namespace

std::vector<std::string> strings_of(const json& list, std::size_t limit) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& item : list) {
    if (item.is_string() && out.size() < limit) out.push_back(item.get<std::string>());
  }
  return out;
}

void add_fatbin_archs(json& python) {
  if (!python.is_object()) return;
  if (python.contains("torch")) torch_archs(python["torch"]);
  if (python.contains("ops_archs")) ops_archs(python["ops_archs"]);
}

}  // namespace bevenv::probe_tool
