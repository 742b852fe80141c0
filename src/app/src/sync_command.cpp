// `bevenv sync`: plan, then remove, install (the unhashed URL pins first, as the image does,
// then the hash-checked rest), run the lock's sdist/VCS builds in order, check the result
// against the lock again, and finish with doctor's environment checks.
#include <unistd.h>

#include <cstdlib>

#include "bevenv/app/doctor.hpp"
#include "bevenv/app/sync.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/core/outside_text.hpp"
#include "bevenv/lockfiles/export.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "sync_output.hpp"
#include "sync_venv.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;
using core::Error;
using core::ExitCode;
using sync_detail::Tool;

// A private directory for the generated requirements files, removed on every way out.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "bevenv-sync.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error(ExitCode::failure, "cannot create a temporary directory in `" +
                                         fs::temp_directory_path().string() + "`");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

lockfiles::Lockfile read_lock(const fs::path& path) {
  std::error_code error;
  if (!fs::exists(path, error)) {
    throw Error(ExitCode::bad_input, "no lockfile at `" + path.string() + "`",
                "run `bevenv lock` first, or name the file with `--lockfile PATH`");
  }
  return lockfiles::read_lockfile(path);
}

void check_python(const fs::path& venv, const lockfiles::Lockfile& lock) {
  const std::string have = venv_python_version(venv);
  const std::string want = lock.target.python;
  if (have.empty() || want.empty()) return;
  if (sync_detail::python_minor(have) == sync_detail::python_minor(want)) return;
  throw Error(ExitCode::bad_input,
              "`" + venv.string() + "` runs Python " + have + "; the lock is for Python " + want,
              "remove it (`rm -r " + venv.string() + "`) and sync again to create it with Python " +
                  sync_detail::python_minor(want) + ", or re-lock: `bevenv lock --python " +
                  sync_detail::python_minor(have) + "`");
}

// The venv's interpreter, creating the venv first when it does not exist (not in a dry run).
fs::path prepare_venv(const SyncOptions& options, const lockfiles::Lockfile& lock,
                      SyncReport& report) {
  std::error_code error;
  const std::string want = sync_detail::python_minor(lock.target.python);
  if (options.python && options.python->find('/') == std::string::npos &&
      sync_detail::python_minor(*options.python) != want) {
    throw Error(ExitCode::bad_input,
                "`--python " + *options.python + "`: the lock is for Python " + lock.target.python,
                "drop `--python` (sync uses a Python " + want + "), or re-lock: `bevenv lock " +
                    "--python " + sync_detail::python_minor(*options.python) + "`");
  }
  if (!fs::exists(options.venv, error)) {
    report.interpreter = sync_detail::find_interpreter(options.python, lock.target.python);
    if (options.dry_run) return {};
    sync_detail::create_venv(report.interpreter, options.venv);
    report.created = true;
  }
  check_python(options.venv, lock);
  return options.venv / "bin" / "python";
}

std::vector<InstalledDist> installed_in(const fs::path& venv) {
  std::error_code error;
  if (!fs::exists(venv, error)) return {};
  return read_installed(site_packages_of(venv));
}

void remove_packages(const SyncPlan& plan, const Tool& tool, SyncReport& report) {
  std::vector<std::string> names;
  for (const PlannedChange& c : plan.changes)
    if (c.kind == ChangeKind::remove) names.push_back(c.name);
  if (names.empty()) return;
  sync_detail::run_installer(sync_detail::uninstall_argv(tool, names),
                             "uninstalling " + quoted_list(names));
  report.removed = names.size();
}

// The packages pip installs, as requirements files made by the requirements export (the same
// split the image uses): the unhashed URL pins first, then everything hash-checked.
void install_packages(const lockfiles::Lockfile& lock, const SyncPlan& plan, const Tool& tool,
                      const fs::path& dir, SyncReport& report) {
  lockfiles::Lockfile subset = lock;
  subset.packages.clear();
  subset.builds.clear();
  for (const PlannedChange& c : plan.changes)
    if (c.via == "hashed" || c.via == "unhashed")
      subset.packages.push_back(*lock.find_package(c.name));
  if (subset.packages.empty()) return;
  const auto exported = lockfiles::export_requirements(subset);
  if (!exported.unhashed_text.empty()) {
    const fs::path file = dir / "requirements.unhashed.txt";
    core::write_file_atomic(file, exported.unhashed_text);
    sync_detail::run_installer(sync_detail::install_argv(tool, {"-r", file.string()}),
                               "installing the packages without a recorded sha256");
    report.unhashed = exported.packages_without_hashes.size();
  }
  if (exported.pins == 0) return;
  const fs::path file = dir / "requirements.txt";
  core::write_file_atomic(file, exported.text);
  sync_detail::run_installer(
      sync_detail::install_argv(tool, {"--require-hashes", "-r", file.string()}),
      "the hash-checked install");
  report.hashed = exported.pins;
}

std::map<std::string, std::string> build_env(const lockfiles::Lockfile& lock,
                                             const lockfiles::BuildStep& b) {
  std::map<std::string, std::string> env = lock.environment.variables;
  for (const auto& [key, value] : b.env) env[key] = value;
  if (!b.cuda_arch_list.empty()) env["TORCH_CUDA_ARCH_LIST"] = b.cuda_arch_list;
  return env;
}

// An sdist build reads its archive from a requirements file (hash-checked, the URL never a
// shell word); a VCS build gets `NAME @ git+...@COMMIT` as one argv element.
void run_build(const lockfiles::Lockfile& lock, const lockfiles::BuildStep& b, const Tool& tool,
               const fs::path& dir) {
  std::vector<std::string> args = {"--no-build-isolation"};
  if (b.source) {
    const fs::path file = dir / ("build-" + core::normalize_name(b.name) + ".txt");
    std::string line = b.source->url;
    if (b.source->sha256) {
      line += " --hash=sha256:" + *b.source->sha256;
      args.push_back("--require-hashes");
    }
    core::write_file_atomic(file, line + "\n");
    args.insert(args.end(), {"-r", file.string()});
  } else {
    if (!core::is_vcs_pin(*b.vcs)) {
      throw Error(ExitCode::bad_input,
                  "lockfile build `" + b.name + "`: `vcs` is not `git+https://HOST/REPO.git@" +
                      "<40 hex digits>`",
                  "re-create the lockfile with `bevenv lock`");
    }
    args.push_back(b.package + " @ " + *b.vcs);
  }
  sync_detail::run_installer(sync_detail::install_argv(tool, args), "build `" + b.name + "`",
                             build_env(lock, b));
}

void apply(const lockfiles::Lockfile& lock, const SyncPlan& plan, const Tool& tool,
           SyncReport& report) {
  const TempDir dir;
  remove_packages(plan, tool, report);
  install_packages(lock, plan, tool, dir.path(), report);
  for (const lockfiles::BuildStep* b : plan.builds) {
    run_build(lock, *b, tool, dir.path());
    ++report.builds;
  }
}

void run_doctor(const SyncOptions& options, const fs::path& python, SyncReport& report) {
  DoctorOptions doctor_options;
  doctor_options.matrix = options.matrix;
  doctor_options.python = python.string();
  doctor_options.lockfile = options.lockfile;
  doctor_options.probe = options.probe;
  doctor_options.self_executable = options.self_executable;
  // The environment's checks only: the host and its GPUs are `bevenv doctor`'s business.
  doctor_options.skip = {"host", "driver", "nvml", "kernel", "nccl"};
  try {
    report.doctor = doctor(doctor_options).json;
  } catch (const Error& e) {
    report.doctor_error = e.what();
  }
}

}  // namespace

CommandOutput sync(const SyncOptions& options) {
  const lockfiles::Lockfile lock = read_lock(options.lockfile);
  SyncReport report;
  report.options = &options;
  const fs::path python = prepare_venv(options, lock, report);
  report.plan = plan_sync(lock, installed_in(options.venv));
  if (options.dry_run) return render_dry_run(report);
  apply(lock, report.plan, Tool{options.installer, python}, report);
  report.after = plan_sync(lock, installed_in(options.venv));
  if (options.doctor) run_doctor(options, python, report);
  return render_sync(report);
}

}  // namespace bevenv::app
