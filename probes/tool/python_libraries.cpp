// Whether torch would load, without loading it: in files mode probe_env.py names torch/_C's
// shared object (`torch.extension`) and bevenv-probe walks its DT_NEEDED as glibc's loader
// would (needed_walk.cpp). A torch wheel for another CUDA, or one whose nvidia-* wheels are
// missing, then reports what `import torch` would say: `libcudart.so.11.0: cannot open shared
// object file`, which doctor matches against its failure catalogue.
#include <chrono>

#include "needed_walk.hpp"
#include "probe_tool.hpp"

namespace bevenv::probe_tool {
namespace {

// The report names a few dozen nvidia folders; a damaged one naming thousands is cut here.
constexpr std::size_t kMaxFolders = 256;

needed::SearchPaths search_paths(const json& python) {
  needed::SearchPaths paths = needed::process_search_paths();
  paths.fallback = strings_of(python.value("nvidia_lib_dirs", json::array()), kMaxFolders);
  const json interpreter = python.value("interpreter", json::object());
  if (interpreter.is_object()) paths.executable = interpreter.value("executable", "");
  return paths;
}

json describe(const needed::Walk& walk, double ms) {
  json missing = json::array();
  for (const auto& item : walk.missing) {
    missing.push_back({{"name", item.name}, {"needed_by", item.needed_by}});
  }
  json out{{"checked", walk.checked}, {"missing", missing}, {"ms", ms}};
  if (!walk.preloaded.empty()) out["preloaded"] = walk.preloaded;
  if (walk.truncated) out["truncated"] = true;
  if (!walk.unreadable.empty()) {
    json unreadable = json::array();
    for (const auto& item : walk.unreadable) {
      unreadable.push_back({{"file", item.file}, {"error", item.error}});
    }
    out["unreadable"] = unreadable;
  }
  return out;
}

}  // namespace

void add_torch_libraries(json& python) {
  if (!python.is_object() || !python.contains("torch")) return;
  json& torch = python["torch"];
  // With --import-torch the import itself says whether torch loads.
  if (!torch.is_object() || torch.value("source", "") != "files") return;
  const auto extension = torch.find("extension");
  if (extension == torch.end() || !extension->is_string()) return;
  const auto start = std::chrono::steady_clock::now();
  const needed::Walk walk = needed::walk({extension->get<std::string>()}, search_paths(python));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  torch["libraries"] = describe(walk, ms);
  if (walk.missing.empty()) return;
  // The loader's own words, with the object that needs the library in front.
  const auto& first = walk.missing.front();
  torch["status"] = "problem";
  torch["evidence"] = first.needed_by + ": " + first.name +
                      ": cannot open shared object file: No such file or directory";
}

}  // namespace bevenv::probe_tool
