#include "lock_recorded.hpp"

#include "bevenv/util/text.hpp"
#include "matrix_text.hpp"

namespace bevenv::app {
namespace {

constexpr const char* kProjectOrigin = "`bevenv.toml`";

// A value recorded with its origin is asked again with that origin, so the re-lock explains
// itself in the same words; one from `bevenv.toml` (or a default) is left to be found again.
bool replayed(const std::string& origin) { return !origin.empty() && origin != kProjectOrigin; }

// The driver and GPUs the lock asks again, with their origins.
void describe_devices(const lockfiles::Lockfile& lock, std::vector<std::string>& parts) {
  const lockfiles::Inputs& in = lock.inputs;
  const lockfiles::Target& t = lock.target;
  const std::string driver = "CUDA driver " + (t.cuda_driver.empty() ? "none" : t.cuda_driver);
  const std::string gpus =
      "GPUs " + (t.gpus.empty() ? std::string("none") : util::join(t.gpus, " "));
  const bool driver_asked = replayed(in.cuda_driver_from);
  const bool gpus_asked = replayed(in.gpus_from);
  // Detection and a host record give both at once: their origin is said once.
  if (driver_asked && gpus_asked && in.cuda_driver_from == in.gpus_from) {
    parts.push_back(driver + ", " + gpus + " (" + in.gpus_from + ")");
    return;
  }
  if (driver_asked) parts.push_back(driver + " (" + in.cuda_driver_from + ")");
  if (gpus_asked) parts.push_back(gpus + " (" + in.gpus_from + ")");
}

// The target values the lock asks again, with their origins: every one it replays is named.
void describe_target(const lockfiles::Lockfile& lock, std::vector<std::string>& parts) {
  const lockfiles::Inputs& in = lock.inputs;
  const lockfiles::Target& t = lock.target;
  if (replayed(in.python_from)) parts.push_back("python " + t.python + " (" + in.python_from + ")");
  describe_devices(lock, parts);
  if (replayed(in.platform_from))
    parts.push_back("platform " + t.platform + " (" + in.platform_from + ")");
  if (replayed(in.glibc_from) && !t.glibc.empty())
    parts.push_back("glibc " + t.glibc + " (" + in.glibc_from + ")");
}

}  // namespace

lockfiles::Inputs inputs_to_record(const LockOptions& options, const TargetFacts& target,
                                   bool has_profile) {
  lockfiles::Inputs in;
  in.requirements = options.requirements;
  if (options.requirements_file) in.requirements_file = options.requirements_file->string();
  if (options.project_file) in.project_file = options.project_file->string();
  in.index_url = options.index_url.value_or("");
  in.extra_index_urls = options.extra_index_urls;
  in.find_links = options.find_links;
  in.no_index = options.no_index;
  // Without `--profile`, the profile came from `bevenv.toml` (the only other place it can).
  if (has_profile) in.profile_from = options.profile ? "`--profile`" : kProjectOrigin;
  // A default python is "the profile"'s: nothing asked, nothing to record.
  if (options.target.python || target.python_from != "the profile") {
    in.python_from = target.python_from;
  }
  in.cuda_driver_from = target.driver_from;
  in.gpus_from = target.gpus_from;
  if (options.target.platform) in.platform_from = "`--platform`";
  if (options.target.glibc) in.glibc_from = "`--glibc`";
  return in;
}

bool names_nothing_to_lock(const LockOptions& options) {
  return !options.profile && options.requirements.empty() && !options.requirements_file;
}

LockOptions with_recorded_inputs(LockOptions base, const lockfiles::Lockfile& lock) {
  lockfiles::Inputs in = lock.inputs;
  if (in.empty()) {
    // A lock written before `[inputs]` existed: its whole target, as it stands.
    in.python_from = in.cuda_driver_from = in.gpus_from = "`bevenv.lock`";
    in.platform_from = in.glibc_from = "`bevenv.lock`";
  }
  // What to lock comes from the lock unless the command line names some of it.
  const bool names_what = !names_nothing_to_lock(base);
  if (!names_what) {
    if (!lock.profile.empty() && in.profile_from != kProjectOrigin) base.profile = lock.profile;
    base.requirements = in.requirements;
    if (!in.requirements_file.empty()) base.requirements_file = in.requirements_file;
  }
  if (!in.project_file.empty() && !base.project_file) base.project_file = in.project_file;
  // Sources: the recorded ones unless flags name any.
  const bool names_sources =
      base.index_url || !base.extra_index_urls.empty() || !base.find_links.empty() || base.no_index;
  if (!names_sources) {
    if (!in.index_url.empty()) base.index_url = in.index_url;
    base.extra_index_urls = in.extra_index_urls;
    base.find_links = in.find_links;
    base.no_index = in.no_index;
  }
  // The recorded target is a layer under the environment and flags, over `bevenv.toml`
  // (choose_target keeps the origin each value carries).
  TargetOverrides& t = base.recorded_target;
  if (replayed(in.python_from)) {
    t.python = lock.target.python;
    t.python_from = in.python_from;
  }
  // `--gpu none` asks for no GPU, so no recorded driver either.
  const bool cpu_asked = base.target.gpus == std::vector<std::string>{"none"};
  if (replayed(in.cuda_driver_from) && !lock.target.cuda_driver.empty() && !cpu_asked) {
    t.cuda_driver = lock.target.cuda_driver;
    t.driver_from = in.cuda_driver_from;
  }
  if (replayed(in.gpus_from)) {
    // A lock for no GPU was asked as `--gpu none`: ask it so again.
    const bool none = lock.target.gpus.empty() && lock.target.cuda_driver.empty();
    t.gpus = none ? std::vector<std::string>{"none"} : lock.target.gpus;
    t.gpus_from = in.gpus_from;
  }
  if (!in.platform_from.empty()) t.platform = lock.target.platform;
  if (!in.glibc_from.empty() && !lock.target.glibc.empty()) t.glibc = lock.target.glibc;
  return base;
}

std::string recorded_inputs_note(const lockfiles::Lockfile& lock, const std::string& path) {
  const lockfiles::Inputs& in = lock.inputs;
  std::vector<std::string> parts;
  // What `bevenv.toml` says is read there again, and not credited to the lock.
  if (!lock.profile.empty() && in.profile_from != kProjectOrigin) {
    parts.push_back("profile `" + lock.profile + "`");
  }
  if (!in.requirements.empty() || !in.requirements_file.empty()) {
    parts.push_back("its requirements");
  }
  if (!in.index_url.empty() || !in.extra_index_urls.empty() || !in.find_links.empty()) {
    parts.push_back("its indexes");
  }
  describe_target(lock, parts);
  if (parts.empty()) return {};
  return "inputs from `" + path + "`: " + util::join(parts, ", ") + "; flags replace them";
}

}  // namespace bevenv::app
