#pragma once
// Which shared libraries a dlopen of an object would fail to find, worked out from the files
// instead of by loading them: bevenv-probe walks torch/_C's DT_NEEDED as glibc's loader would
// (its search order, $ORIGIN, the RPATH of the objects that loaded it, libraries already
// loaded by name or by file), so that a torch wheel without its CUDA libraries (the commonest
// reason `import torch` fails) is noticed without `import torch`.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace bevenv::probe_tool::needed {

// Where the inspected process's loader looks, besides each object's own RPATH and RUNPATH.
struct SearchPaths {
  std::vector<std::string> library_path;  // LD_LIBRARY_PATH, in order
  std::vector<std::string> system;        // ld.so.conf's directories, then the default ones
  // Searched after everything else: the nvidia/*/lib folders from which torch/__init__.py
  // preloads the CUDA libraries when the loader's own search misses them.
  std::vector<std::string> fallback;
  std::vector<std::string> preloaded;  // LD_PRELOAD: loaded before anything asks for them
  std::string executable;              // the main program, whose DT_RPATH ends every RPATH chain
  std::string platform;  // what $PLATFORM expands to; empty: elements naming it are skipped
};

// This process's: LD_LIBRARY_PATH and LD_PRELOAD of its environment (the inspected
// interpreter inherits it), the directories of `ld_so_conf` with its includes, the default
// directories, and AT_PLATFORM.
SearchPaths process_search_paths(const std::string& ld_so_conf = "/etc/ld.so.conf");

// The directories `ld_so_conf` names, its `include` globs followed (relative ones from its
// folder), in order, each once.
std::vector<std::string> ld_so_conf_dirs(const std::string& ld_so_conf);

// The names the walk does not look for: glibc's own libraries (always there when anything
// runs) and libcuda.so.1 (the driver's, which the driver probe reports).
bool is_skipped(const std::string& name);

struct Missing {
  std::string name;       // as DT_NEEDED spells it: libcudart.so.11.0
  std::string needed_by;  // the path of the object that needs it
};

struct Problem {
  std::string file;
  std::string error;
};

struct Walk {
  std::size_t checked = 0;                   // objects whose dynamic section was read
  std::vector<Missing> missing;              // each name once, with its first requester
  std::map<std::string, std::string> found;  // DT_NEEDED name -> the path it resolved to
  std::vector<std::string> preloaded;        // names only `fallback` holds
  std::vector<Problem> unreadable;           // found, but not an object this reader can read
  bool truncated = false;                    // stopped at the object limit
};

// Walks the DT_NEEDED of each root in turn (one dlopen after another: what the first loaded
// serves the next), breadth first as the loader maps dependencies, visiting each object once
// and at most `max_objects` of them.
Walk walk(const std::vector<std::string>& roots, const SearchPaths& paths,
          std::size_t max_objects = 500);

}  // namespace bevenv::probe_tool::needed
