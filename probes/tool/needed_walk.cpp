// The loader's search, done on files (see needed_walk.hpp). glibc's order for a DT_NEEDED name
// without a slash, asked for by object L:
//   1. when L has no DT_RUNPATH: the DT_RPATH of L, of the object that loaded L, and so on up,
//      then that of the main program (an object with DT_RUNPATH has no DT_RPATH in effect);
//   2. LD_LIBRARY_PATH;  3. L's DT_RUNPATH (L's own, never inherited);
//   4. unless L has DF_1_NODEFLIB: the ld.so.cache (here the ld.so.conf directories it is
//      built from), then the default directories.
// A name already loaded (as a DT_NEEDED name or a DT_SONAME), or a file already loaded under
// another path, is not loaded again. Objects of another ELF class or machine are passed over.
#include "needed_walk.hpp"

#include <glob.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "elf_needed.hpp"

namespace bevenv::probe_tool::needed {
namespace {

// ld.so.conf includes nest a level or two; deeper is a cycle.
constexpr int kMaxIncludeDepth = 8;
constexpr std::size_t kMaxMissing = 64;

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string basename_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// "/usr/lib/" -> "/usr/lib"; "/" stays.
std::string without_trailing_slashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::vector<std::string> split(const std::string& text, const std::string& separators) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find_first_of(separators, start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

void add_once(std::vector<std::string>& dirs, const std::string& dir) {
  for (const auto& known : dirs) {
    if (known == dir) return;
  }
  dirs.push_back(dir);
}

void read_conf(const std::string& path, int depth, std::vector<std::string>& dirs);

void read_include(const std::string& conf, const std::string& pattern, int depth,
                  std::vector<std::string>& dirs) {
  const std::string full = pattern[0] == '/' ? pattern : dirname_of(conf) + "/" + pattern;
  glob_t matches{};
  if (::glob(full.c_str(), 0, nullptr, &matches) == 0) {
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
      read_conf(matches.gl_pathv[i], depth + 1, dirs);
    }
  }
  ::globfree(&matches);
}

// ldconfig's syntax: one directory a line (an old `=TYPE` suffix allowed), `include GLOB`,
// `hwcap ...` (ignored), `#` comments.
void read_conf(const std::string& path, int depth, std::vector<std::string>& dirs) {
  if (depth > kMaxIncludeDepth) return;
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);) {
    line = trim(line.substr(0, line.find('#')));
    const bool include =
        starts_with(line, "include") && line.size() > 7 && (line[7] == ' ' || line[7] == '\t');
    if (include) {
      const std::string pattern = trim(line.substr(7));
      if (!pattern.empty()) read_include(path, pattern, depth, dirs);
    } else if (starts_with(line, "hwcap ") || starts_with(line, "hwcap\t")) {
      continue;
    } else if (!line.empty()) {
      add_once(dirs, without_trailing_slashes(trim(line.substr(0, line.find('=')))));
    }
  }
}

#if defined(__x86_64__)
constexpr const char* kMultiarch = "x86_64-linux-gnu";
#elif defined(__aarch64__)
constexpr const char* kMultiarch = "aarch64-linux-gnu";
#elif defined(__powerpc64__)
constexpr const char* kMultiarch = "powerpc64le-linux-gnu";
#else
constexpr const char* kMultiarch = "";
#endif

bool is_dir(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// What $LIB names depends on how glibc was built: lib/<triplet> on Debian and Ubuntu, lib64 on
// Red Hat's and SUSE's x86_64.
std::string lib_token() {
  const std::string multiarch = std::string("lib/") + kMultiarch;
  if (*kMultiarch != '\0' && is_dir("/" + multiarch)) return multiarch;
  return is_dir("/lib64") ? "lib64" : "lib";
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// $NAME or ${NAME} at `at` of `text`: the name and the length of the token, or {"", 0}.
std::pair<std::string, std::size_t> token_at(const std::string& text, std::size_t at) {
  for (const char* name : {"ORIGIN", "PLATFORM", "LIB"}) {
    const std::string plain = std::string("$") + name;
    const std::string braced = std::string("${") + name + "}";
    if (text.compare(at, braced.size(), braced) == 0) return {name, braced.size()};
    if (text.compare(at, plain.size(), plain) != 0) continue;
    const std::size_t end = at + plain.size();
    const bool word_goes_on =
        end < text.size() &&
        (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_');
    if (!word_goes_on) return {name, plain.size()};
  }
  return {"", 0};
}

struct Tokens {
  std::string origin;
  std::string platform;
  std::string lib;
};

// `text` with its dynamic string tokens replaced; nullopt when one has no value, which makes
// the loader drop the element. An unknown `$WORD` stays as written, as it does for the loader.
std::optional<std::string> expand(const std::string& text, const Tokens& tokens) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t dollar = std::min(text.find('$', at), text.size());
    out.append(text, at, dollar - at);
    if (dollar == text.size()) break;
    const auto [name, length] = token_at(text, dollar);
    at = dollar + std::max<std::size_t>(length, 1);
    if (length == 0) {
      out += '$';
      continue;
    }
    const std::string& value = name == "ORIGIN"     ? tokens.origin
                               : name == "PLATFORM" ? tokens.platform
                                                    : tokens.lib;
    if (value.empty()) return std::nullopt;
    out += value;
  }
  return out;
}

// A path list as the loader reads it: split, tokens expanded, trailing slashes dropped; an
// empty element is the working directory.
std::vector<std::string> path_list(const std::string& list, const std::string& separators,
                                   const Tokens& tokens) {
  std::vector<std::string> out;
  for (const auto& element : split(list, separators)) {
    if (element.empty()) {
      out.emplace_back(".");
      continue;
    }
    const auto expanded = expand(element, tokens);
    if (expanded && !expanded->empty()) out.push_back(without_trailing_slashes(*expanded));
  }
  return out;
}

struct Object {
  std::string path;
  elf::Dynamic dynamic;
  std::optional<std::size_t> loader;  // the object whose DT_NEEDED brought this one in
  std::vector<std::string> rpath;     // DT_RPATH in effect (none beside a DT_RUNPATH), expanded
  std::vector<std::string> runpath;
};

// Candidate outcome: not there (search on), found (new or already loaded), or there but broken
// (the loader stops there with an error).
enum class Candidate { absent, found, broken };

class Walker {
 public:
  Walker(const SearchPaths& paths, std::size_t max_objects, Walk& out)
      : paths_(paths), max_objects_(max_objects), out_(out) {
    provide_executable();
    provide_preloaded();
  }

  void walk_root(const std::string& path);

 private:
  Tokens tokens_for(const std::string& path) const {
    return {dirname_of(path), paths_.platform, lib_};
  }
  void provide_executable();
  void provide_preloaded();
  std::optional<std::size_t> add_object(const std::string& path, elf::Dynamic dynamic,
                                        std::optional<std::size_t> loader);
  void resolve(std::size_t requester, const std::string& name);
  bool search(std::size_t requester, const std::string& name);
  Candidate try_file(std::size_t requester, const std::string& name, const std::string& path);
  bool dir_exists(const std::string& dir);

  const SearchPaths& paths_;
  std::size_t max_objects_;
  Walk& out_;
  std::string lib_ = lib_token();
  std::uint16_t machine_ = 0;   // the roots': others are passed over
  std::deque<Object> objects_;  // a deque: references stay valid as objects are added
  std::deque<std::size_t> queue_;
  std::set<std::string> loaded_names_;  // DT_NEEDED names and sonames of loaded objects
  std::set<std::string> missing_names_;
  std::set<std::pair<std::uint64_t, std::uint64_t>> loaded_files_;  // (device, inode)
  std::vector<std::string> executable_rpath_;
  std::unordered_map<std::string, bool> dirs_;
};

// The main program is loaded already: its DT_NEEDED are there, and its DT_RPATH ends every
// RPATH chain ($ORIGIN: the folder of the program itself, symbolic links resolved).
void Walker::provide_executable() {
  if (paths_.executable.empty()) return;
  char resolved[PATH_MAX];
  if (::realpath(paths_.executable.c_str(), resolved) == nullptr) return;
  const elf::Dynamic dynamic = elf::read_dynamic_from_file(resolved);
  if (!dynamic.ok()) return;
  loaded_names_.insert(dynamic.needed.begin(), dynamic.needed.end());
  if (dynamic.rpath && !dynamic.runpath) {
    executable_rpath_ = path_list(*dynamic.rpath, ":", tokens_for(resolved));
  }
}

void Walker::provide_preloaded() {
  for (const auto& entry : paths_.preloaded) {
    loaded_names_.insert(basename_of(entry));
    if (entry.find('/') == std::string::npos) continue;
    const elf::Dynamic dynamic = elf::read_dynamic_from_file(entry);
    if (!dynamic.soname.empty()) loaded_names_.insert(dynamic.soname);
  }
}

std::optional<std::size_t> Walker::add_object(const std::string& path, elf::Dynamic dynamic,
                                              std::optional<std::size_t> loader) {
  if (objects_.size() >= max_objects_) {
    out_.truncated = true;
    return std::nullopt;
  }
  Object object{path, std::move(dynamic), loader, {}, {}};
  const Tokens tokens = tokens_for(path);
  if (object.dynamic.runpath) {
    object.runpath = path_list(*object.dynamic.runpath, ":", tokens);
  } else if (object.dynamic.rpath) {
    object.rpath = path_list(*object.dynamic.rpath, ":", tokens);
  }
  if (!object.dynamic.soname.empty()) loaded_names_.insert(object.dynamic.soname);
  objects_.push_back(std::move(object));
  ++out_.checked;
  queue_.push_back(objects_.size() - 1);
  return objects_.size() - 1;
}

void Walker::walk_root(const std::string& path) {
  const elf::OpenFile file(path);
  if (file.fd < 0) {
    out_.unreadable.push_back({path, file.error});
    return;
  }
  elf::FileSource source(file.fd, file.size);
  elf::Dynamic dynamic = elf::read_dynamic(source);
  if (!dynamic.ok()) {
    out_.unreadable.push_back({path, dynamic.error});
    return;
  }
  if (machine_ == 0) machine_ = dynamic.machine;
  if (!loaded_files_.insert({file.device, file.inode}).second) return;  // loaded already
  loaded_names_.insert(path);
  if (!add_object(path, std::move(dynamic), std::nullopt)) return;
  while (!queue_.empty() && !out_.truncated) {
    const std::size_t index = queue_.front();
    queue_.pop_front();
    for (const auto& name : objects_[index].dynamic.needed) resolve(index, name);
  }
}

void Walker::resolve(std::size_t requester, const std::string& name) {
  if (is_skipped(name) || loaded_names_.contains(name) || missing_names_.contains(name)) return;
  if (search(requester, name)) return;
  if (out_.truncated) return;
  missing_names_.insert(name);
  if (out_.missing.size() < kMaxMissing) out_.missing.push_back({name, objects_[requester].path});
}

// The directory lists in the loader's order for `requester`, the fallback last.
bool Walker::search(std::size_t requester, const std::string& name) {
  const Object& object = objects_[requester];
  const auto file = expand(name, tokens_for(object.path));
  if (!file) return false;
  if (file->find('/') != std::string::npos) {
    return try_file(requester, name, *file) != Candidate::absent;
  }
  std::vector<const std::vector<std::string>*> lists;
  if (object.dynamic.runpath == std::nullopt) {
    for (std::optional<std::size_t> at = requester; at; at = objects_[*at].loader) {
      lists.push_back(&objects_[*at].rpath);
    }
    lists.push_back(&executable_rpath_);
  }
  lists.push_back(&paths_.library_path);
  lists.push_back(&object.runpath);
  if (!object.dynamic.nodeflib) lists.push_back(&paths_.system);
  lists.push_back(&paths_.fallback);
  for (const auto* list : lists) {
    for (const auto& dir : *list) {
      if (!dir_exists(dir)) continue;
      const Candidate found = try_file(requester, name, dir + "/" + *file);
      if (found == Candidate::absent) continue;
      if (list == &paths_.fallback) out_.preloaded.push_back(name);
      return true;
    }
  }
  return false;
}

Candidate Walker::try_file(std::size_t requester, const std::string& name,
                           const std::string& path) {
  const elf::OpenFile file(path);
  if (file.fd < 0) return Candidate::absent;
  if (loaded_files_.contains({file.device, file.inode})) {
    loaded_names_.insert(name);
    return Candidate::found;
  }
  elf::FileSource source(file.fd, file.size);
  elf::Dynamic dynamic = elf::read_dynamic(source);
  if (dynamic.machine == 0 && dynamic.error != "not an ELF file") return Candidate::absent;
  if (dynamic.machine != 0 && dynamic.machine != machine_) return Candidate::absent;
  loaded_names_.insert(name);
  out_.found[name] = path;
  if (!dynamic.ok()) {
    out_.unreadable.push_back({path, dynamic.error});
    return Candidate::broken;
  }
  loaded_files_.insert({file.device, file.inode});
  add_object(path, std::move(dynamic), requester);
  return Candidate::found;
}

// The loader, too, remembers which directories do not exist: torch's RPATH names 17 wheels'
// folders, most of which an install lacks.
bool Walker::dir_exists(const std::string& dir) {
  const auto known = dirs_.find(dir);
  if (known != dirs_.end()) return known->second;
  const bool exists = is_dir(dir);
  dirs_.emplace(dir, exists);
  return exists;
}

}  // namespace

std::vector<std::string> ld_so_conf_dirs(const std::string& ld_so_conf) {
  std::vector<std::string> dirs;
  read_conf(ld_so_conf, 0, dirs);
  return dirs;
}

SearchPaths process_search_paths(const std::string& ld_so_conf) {
  SearchPaths paths;
  const auto* platform = reinterpret_cast<const char*>(::getauxval(AT_PLATFORM));
  paths.platform = platform == nullptr ? "" : platform;
  const std::string library_path = env("LD_LIBRARY_PATH");
  if (!library_path.empty()) {
    // $ORIGIN there is the program's folder, which this process does not know: such elements
    // are left out.
    paths.library_path = path_list(library_path, ":;", {"", paths.platform, lib_token()});
  }
  for (const auto& entry : split(env("LD_PRELOAD"), " :")) {
    if (!entry.empty()) paths.preloaded.push_back(entry);
  }
  paths.system = ld_so_conf_dirs(ld_so_conf);
  const std::string multiarch = kMultiarch;
  for (const std::string prefix : {"/lib", "/usr/lib"}) {
    if (!multiarch.empty()) add_once(paths.system, prefix + "/" + multiarch);
  }
  for (const char* dir : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) add_once(paths.system, dir);
  return paths;
}

bool is_skipped(const std::string& name) {
  static const std::set<std::string> kGlibc{
      "libc.so.6",    "libm.so.6",    "libdl.so.2",           "libpthread.so.0",
      "librt.so.1",   "libutil.so.1", "libresolv.so.2",       "libanl.so.1",
      "libmvec.so.1", "libnsl.so.1",  "libBrokenLocale.so.1", "libthread_db.so.1",
      "libcuda.so.1"};
  return kGlibc.contains(name) || starts_with(name, "ld-linux") || starts_with(name, "ld64.so");
}

Walk walk(const std::vector<std::string>& roots, const SearchPaths& paths,
          std::size_t max_objects) {
  Walk out;
  Walker walker(paths, max_objects, out);
  for (const auto& root : roots) walker.walk_root(root);
  return out;
}

}  // namespace bevenv::probe_tool::needed
