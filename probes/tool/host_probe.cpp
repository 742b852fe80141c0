// Host facts that need no driver: /dev/shm, the memlock limit, container hints and the
// environment variables that steer CUDA, NCCL and PyTorch.
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "dynlib.hpp"
#include "probe_tool.hpp"

extern char** environ;

namespace bevenv::probe_tool {
namespace {

json shm_report() {
  struct statvfs info {};
  if (::statvfs("/dev/shm", &info) != 0) return {{"status", "missing"}, {"path", "/dev/shm"}};
  return {{"status", "ok"},
          {"path", "/dev/shm"},
          {"total_bytes", static_cast<unsigned long long>(info.f_blocks) * info.f_frsize},
          {"free_bytes", static_cast<unsigned long long>(info.f_bavail) * info.f_frsize}};
}

json limit_value(rlim_t value) {
  if (value == RLIM_INFINITY) return "unlimited";
  return static_cast<unsigned long long>(value);
}

json memlock_report() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_MEMLOCK, &limit) != 0) return {{"status", "error"}};
  return {{"status", "ok"},
          {"soft", limit_value(limit.rlim_cur)},
          {"hard", limit_value(limit.rlim_max)}};
}

std::string read_file(const char* path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

json container_report() {
  json evidence = json::array();
  std::string runtime;
  auto note = [&](const std::string& kind, const std::string& why) {
    if (runtime.empty()) runtime = kind;
    evidence.push_back(why);
  };
  if (::access("/.dockerenv", F_OK) == 0) note("docker", "/.dockerenv exists");
  if (::access("/run/.containerenv", F_OK) == 0) note("podman", "/run/.containerenv exists");
  if (!env_or_empty("KUBERNETES_SERVICE_HOST").empty()) {
    note("kubernetes", "KUBERNETES_SERVICE_HOST is set");
  }
  if (const std::string value = env_or_empty("container"); !value.empty()) {
    note(value, "container=" + value);
  }
  const std::string cgroup = read_file("/proc/1/cgroup");
  for (const char* hint : {"docker", "kubepods", "containerd", "libpod", "lxc"}) {
    if (cgroup.find(hint) != std::string::npos) {
      note(hint, std::string("/proc/1/cgroup mentions ") + hint);
    }
  }
  return {{"detected", !evidence.empty()},
          {"runtime", runtime.empty() ? json(nullptr) : json(runtime)},
          {"evidence", evidence}};
}

bool variable_matters(const std::string& name) {
  static const char* const kExact[] = {"CUDA_VISIBLE_DEVICES",
                                       "NVIDIA_VISIBLE_DEVICES",
                                       "NVIDIA_DRIVER_CAPABILITIES",
                                       "PYTORCH_CUDA_ALLOC_CONF",
                                       "LD_LIBRARY_PATH",
                                       "CUDA_HOME",
                                       "CUDA_PATH",
                                       "TORCH_CUDA_ARCH_LIST",
                                       "CUDA_MODULE_LOADING",
                                       "CUDA_CACHE_PATH",
                                       "CUDA_CACHE_MAXSIZE",
                                       "CUDA_CACHE_DISABLE",
                                       "CUDA_LAUNCH_BLOCKING",
                                       "CUDA_DEVICE_ORDER",
                                       "OMP_NUM_THREADS",
                                       "VIRTUAL_ENV",
                                       "CONDA_PREFIX",
                                       "MASTER_ADDR",
                                       "MASTER_PORT",
                                       "WORLD_SIZE",
                                       "RANK",
                                       "LOCAL_RANK"};
  for (const char* exact : kExact) {
    if (name == exact) return true;
  }
  return name.rfind("NCCL_", 0) == 0;
}

json environment_report() {
  json out = json::object();
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto equals = text.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = text.substr(0, equals);
    if (variable_matters(name)) out[name] = text.substr(equals + 1);
  }
  return out;
}

}  // namespace

json probe_host() {
  json out{{"status", "ok"}};
  char hostname[256] = {};
  if (::gethostname(hostname, sizeof hostname - 1) == 0) out["hostname"] = hostname;
  struct utsname names {};
  if (::uname(&names) == 0) {
    out["kernel"] = std::string(names.sysname) + " " + names.release;
    out["machine"] = names.machine;
  }
  out["shm"] = shm_report();
  out["memlock"] = memlock_report();
  out["container"] = container_report();
  out["env"] = environment_report();
  return out;
}

}  // namespace bevenv::probe_tool
