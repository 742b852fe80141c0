#include "bevenv/containers/dockerfile.hpp"

#include <chrono>
#include <cstdio>
#include <regex>

#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/lockfiles/export.hpp"
#include "bevenv/util/text.hpp"
#include "image_plan.hpp"
#include "safe_text.hpp"

namespace bevenv::containers {
namespace {

using detail::dockerfile_quote;
using detail::ImagePlan;
using detail::PlannedBuild;

constexpr const char* kVenv = "/opt/venv";
constexpr const char* kPipCache = "--mount=type=cache,target=/root/.cache/pip";

// `NAME="value" \` lines of one ENV or LABEL instruction.
std::string key_values(const char* instruction,
                       const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    out += i == 0 ? std::string(instruction) + " " : std::string("    ");
    out += pairs[i].first + "=" + dockerfile_quote(pairs[i].second);
    out += i + 1 < pairs.size() ? " \\\n" : "\n";
  }
  return out;
}

// Python X.Y from the base when it has one that can make a venv (and has headers when something
// is compiled), else the distribution's packages, else the deadsnakes PPA (Ubuntu releases
// whose archive lacks that minor).
std::string python_step(const ImagePlan& plan, bool needs_headers) {
  const std::string py = "python" + plan.python_minor;
  std::string check = "import ensurepip, venv";
  if (needs_headers) {
    check +=
        "; import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()"
        "[\"include\"], \"Python.h\"))";
  }
  const std::string packages = py + " " + py + "-venv" + (needs_headers ? " " + py + "-dev" : "");
  std::string out;
  out += "# Python " + plan.python_minor +
         " (the lock's minor version; the patch level is the "
         "distribution's).\n";
  out += "# hadolint ignore=DL3008\n";
  out += "RUN if ! " + py + " -c " + util::sh_word(check) + " 2>/dev/null; then \\\n";
  out += "      apt-get update \\\n";
  out += "      && { apt-get install -y --no-install-recommends " + packages + " \\\n";
  out +=
      "           || { apt-get install -y --no-install-recommends software-properties-common "
      "gpg-agent \\\n";
  out += "                && add-apt-repository -y ppa:deadsnakes/ppa \\\n";
  out +=
      "                && apt-get install -y --no-install-recommends " + packages + "; }; } \\\n";
  out += "      && rm -rf /var/lib/apt/lists/*; \\\n";
  out += "    fi \\\n";
  out += "    && " + py + " -m venv " + kVenv + "\n";
  return out;
}

std::string environment_step(const lockfiles::Lockfile& lock) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"VIRTUAL_ENV", kVenv},
      {"PATH", std::string(kVenv) + "/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
                                    "/sbin:/bin"},
      {"PIP_DISABLE_PIP_VERSION_CHECK", "1"},
      {"PYTHONUNBUFFERED", "1"},
  };
  const auto& vars = lock.environment.variables;
  if (!lock.environment.cuda.empty() && !vars.contains("CUDA_HOME")) {
    env.emplace_back("CUDA_HOME", "/usr/local/cuda");
  }
  if (!lock.environment.torch_cuda_arch_list.empty() && !vars.contains("TORCH_CUDA_ARCH_LIST")) {
    env.emplace_back("TORCH_CUDA_ARCH_LIST", lock.environment.torch_cuda_arch_list);
  }
  for (const auto& [name, value] : vars) {
    if (name != "PATH" && name != "VIRTUAL_ENV") env.emplace_back(name, value);
  }
  return key_values("ENV", env);
}

// One `pip install --no-deps` of a requirements file from the context. The index option's URL
// comes from the lockfile, checked, and is shell-quoted; the pins stay in the file.
std::string pip_install_step(const std::string& file, const std::string& index_option,
                             bool hashes) {
  std::string out = "COPY " + file + " /opt/bevenv/" + file + "\n";
  out += "RUN " + std::string(kPipCache) + " \\\n";
  out += "    pip install --no-deps";
  if (hashes) out += " --require-hashes";
  if (!index_option.empty()) {
    const auto space = index_option.find(' ');
    out += " " + (space == std::string::npos ? index_option
                                             : index_option.substr(0, space) + " " +
                                                   util::sh_word(index_option.substr(space + 1)));
  }
  out += " -r /opt/bevenv/" + file + "\n";
  return out;
}

// The packages without a recorded sha256 first (torch: later builds import it), by file URL or
// `name==version` from their page; then the rest, every file hash-checked.
std::string locked_install_steps(const ImagePlan& plan, const ImageFiles& files) {
  std::string out;
  if (!files.unhashed_requirements.empty()) {
    out += "\n# First the locked packages without a recorded sha256 (their pages publish none):\n";
    out += "# pinned, without dependency resolution, not hash-checked.\n";
    out += pip_install_step(kUnhashedRequirementsName, plan.unhashed_index_option, false);
  }
  if (files.hashes_required || files.unhashed_requirements.empty()) {
    out += "\n# The locked packages, exactly: pinned, without dependency resolution";
    out += files.hashes_required ? ", hash-checked.\n" : ".\n";
    out += pip_install_step(kRequirementsName, plan.pip_index_option, files.hashes_required);
  }
  return out;
}

// The image checks itself; a failure stops the build at this layer. `pip check`: every installed
// distribution's requirements are met (a lock missing a package fails here). bevenv-probe's
// Python checks, where it is in the image: `import torch` and the field failures F1-F4 and
// mmcv's ops, all of which import without a GPU; it fails where `bevenv doctor` reports a
// problem. F5 (mmdet3d's compiled ops) is skipped while project builds that compile ops are
// still to come; the check after them runs it.
std::string verify_step(bool with_probe, bool project_builds_follow) {
  std::string out = "\n# The image checks itself: `pip check`";
  if (with_probe) out += " and bevenv-probe's Python checks (docs/build-image.md)";
  out += with_probe && project_builds_follow
             ? ";\n# F5 (compiled ops) waits for the project builds.\n"
             : ".\n";
  // A layer of its own, so that a failure names it: DL3059 (consecutive RUNs) does not apply.
  out += "# hadolint ignore=DL3059\n";
  out += "RUN pip check";
  if (with_probe) {
    out += " \\\n    && XDG_CACHE_HOME=/tmp/bevenv-verify " + std::string(kProbeName) +
           " --only python --python " + kVenv + "/bin/python --timeout 300 --fail-on problem";
    if (project_builds_follow) out += " --skip-check F5";
    out += " >/dev/null \\\n    && rm -rf /tmp/bevenv-verify";
  }
  return out + "\n";
}

// `export A='1' B='2' \` so that every command of the step sees the build's variables.
std::string build_exports(const lockfiles::BuildStep& step) {
  std::map<std::string, std::string> env = step.env;
  if (!step.cuda_arch_list.empty() && !env.contains("TORCH_CUDA_ARCH_LIST")) {
    env["TORCH_CUDA_ARCH_LIST"] = step.cuda_arch_list;
  }
  std::string out;
  for (const auto& [name, value] : env) out += " " + name + "=" + util::sh_word(value);
  return out.empty() ? out : "export" + out;
}

// A package built from its sdist: pip reads the URL and hash from a context file, builds without
// isolation against the locked build requirements already installed, and checks the hash.
std::string source_build_step(const PlannedBuild& planned) {
  const lockfiles::BuildStep& step = planned.step;
  const std::string file = "/opt/bevenv/" + planned.requirement_file;
  const bool archive = step.source.has_value();
  std::string out = "# build `" + step.name + "`: `" + core::normalize_name(step.package) +
                    (archive ? "` from its sdist, hash-checked" : "` from its pinned commit");
  // A compiled sdist (mmcv-full's ops) says for which GPUs, as a command build does.
  const auto arch = step.env.find("TORCH_CUDA_ARCH_LIST");
  if (archive && arch != step.env.end())
    out += ", compiled for TORCH_CUDA_ARCH_LIST=" + arch->second;
  out += "\n";
  out += "COPY " + planned.requirement_file + " " + file + "\n";
  if (!archive) out += "# hadolint ignore=DL3008\n";
  out += "RUN " + std::string(kPipCache) + " \\\n";
  // pip clones with git, which CUDA base images lack.
  if (!archive) {
    out += "    { command -v git >/dev/null || { apt-get update \\\n";
    out += "      && apt-get install -y --no-install-recommends git ca-certificates \\\n";
    out += "      && rm -rf /var/lib/apt/lists/*; }; } \\\n    && ";
  }
  if (const std::string exports = build_exports(step); !exports.empty())
    out += (archive ? "    " : "") + exports + " \\\n    && ";
  else if (archive)
    out += "    ";
  // pip cannot hash a VCS checkout; the 40-digit commit pins its content instead.
  out += std::string("pip install --no-deps --no-build-isolation") +
         (archive ? " --require-hashes" : "") + " -r " + file + "\n";
  return out;
}

std::string build_step(const PlannedBuild& planned) {
  if (!planned.requirement_file.empty()) return source_build_step(planned);
  const lockfiles::BuildStep& step = planned.step;
  std::string out = "# build `" + step.name + "`";
  const std::string arch = step.env.contains("TORCH_CUDA_ARCH_LIST")
                               ? step.env.at("TORCH_CUDA_ARCH_LIST")
                               : step.cuda_arch_list;
  if (!arch.empty()) out += ": compiled for TORCH_CUDA_ARCH_LIST=" + arch;
  out += "\n";
  if (!planned.source_package.empty()) {
    // The sdist of the package the build produces, unpacked where the build runs.
    const std::string pin = util::sh_word(planned.source_package + "==" + planned.source_version);
    out += "RUN " + std::string(kPipCache) + " \\\n";
    out += "    pip download --no-deps --no-binary=:all: --no-build-isolation";
    if (!planned.source_option.empty()) out += " " + planned.source_option;
    out += " --dest /tmp/bevenv-sdist " + pin + " \\\n";
    out +=
        "    && python -c 'import glob, shutil; shutil.unpack_archive(glob.glob(\"/tmp/"
        "bevenv-sdist/*\")[0], \"/tmp/bevenv-unpack\")' \\\n";
    out += "    && mkdir -p " + planned.workdir.substr(0, planned.workdir.rfind('/')) + " \\\n";
    out += "    && mv /tmp/bevenv-unpack/* " + planned.workdir + " \\\n";
    out += "    && rm -rf /tmp/bevenv-sdist /tmp/bevenv-unpack\n";
  }
  out += "WORKDIR " + planned.workdir + "\n";
  out += "RUN " + std::string(kPipCache) + " \\\n";
  const std::string exports = build_exports(step);
  std::string joiner = "    ";
  if (!exports.empty()) {
    out += "    " + exports + " \\\n";
    joiner = "    && ";
  }
  for (std::size_t i = 0; i < step.commands.size(); ++i) {
    out += joiner + step.commands[i];
    out += i + 1 < step.commands.size() ? " \\\n" : "\n";
    joiner = "    && ";
  }
  return out;
}

std::string labels(const lockfiles::Lockfile& lock, const ImagePlan& plan,
                   const ImageOptions& options) {
  const std::string name = lock.profile.empty() ? "environment" : lock.profile;
  std::vector<std::pair<std::string, std::string>> pairs = {
      {"org.opencontainers.image.title", "bevenv " + name},
      {"org.opencontainers.image.description",
       "Python " + plan.python_minor +
           (lock.environment.cuda.empty() ? "" : ", CUDA " + lock.environment.cuda) +
           ", locked by " + lock.generator},
      {"org.opencontainers.image.created", iso8601_utc(options.source_date_epoch)},
      {"org.opencontainers.image.version",
       lock.input_hash.substr(lock.input_hash.find(':') + 1, 12)},
      {"org.opencontainers.image.base.name", plan.base_image.substr(0, plan.base_image.find('@'))},
  };
  const auto at = plan.base_image.find('@');
  if (at != std::string::npos) {
    pairs.emplace_back("org.opencontainers.image.base.digest", plan.base_image.substr(at + 1));
  }
  pairs.emplace_back("dev.bevenv.input-hash", lock.input_hash);
  pairs.emplace_back("dev.bevenv.profile", lock.profile);
  pairs.emplace_back("dev.bevenv.matrix-version", lock.matrix_version);
  pairs.emplace_back("dev.bevenv.python", lock.target.python);
  if (!lock.environment.cuda.empty()) pairs.emplace_back("dev.bevenv.cuda", lock.environment.cuda);
  if (!lock.environment.torch_cuda_arch_list.empty()) {
    pairs.emplace_back("dev.bevenv.torch-cuda-arch-list", lock.environment.torch_cuda_arch_list);
  }
  if (!options.lockfile_digest.empty()) {
    pairs.emplace_back("dev.bevenv.lockfile-digest", options.lockfile_digest);
  }
  return key_values("LABEL", pairs);
}

// Everything but the Dockerfile: the two requirements files and the builds' sources.
ImageFiles context_files(const ImagePlan& plan, const ImageOptions& options) {
  ImageFiles files;
  lockfiles::RequirementsOptions requirements_options;
  requirements_options.lockfile_name = options.lockfile_name;
  requirements_options.file_name = kRequirementsName;
  requirements_options.unhashed_file_name = kUnhashedRequirementsName;
  const auto exported = lockfiles::export_requirements(plan.installable, requirements_options);
  files.requirements = exported.text;
  files.unhashed_requirements = exported.unhashed_text;
  files.hashes_required = exported.hashes_written;
  files.packages_without_hashes = exported.packages_without_hashes;
  files.built_in_image = plan.built_in_image;
  for (const auto& b : plan.dependency_builds) {
    if (!b.requirement_file.empty())
      files.build_requirements.emplace_back(b.requirement_file, b.requirement_text);
  }
  files.base_image = plan.base_image;
  files.project_dir = plan.project_dir;
  files.python_minor = plan.python_minor;
  return files;
}

// The project source, its builds and (after builds, which may install packages and compile
// ops) the self-check again, F5 included.
std::string project_steps(const ImagePlan& plan, bool with_probe) {
  std::string out =
      "\n# The project source comes last: editing it leaves every layer above cached.\n";
  out += "COPY " + std::string(kProjectDirName) + "/ " + plan.project_dir + "/\n";
  std::string workdir;
  for (const auto& b : plan.project_builds) {
    out += "\n" + build_step(b);
    workdir = b.workdir;
  }
  if (!plan.project_builds.empty()) out += verify_step(with_probe, false);
  if (workdir != plan.project_dir) out += "WORKDIR " + plan.project_dir + "\n";
  return out;
}

}  // namespace

std::string iso8601_utc(std::int64_t epoch_seconds) {
  using namespace std::chrono;
  const sys_seconds time{seconds{epoch_seconds}};
  const auto day = floor<days>(time);
  const year_month_day date{day};
  const hh_mm_ss clock{time - day};
  char text[64];
  std::snprintf(
      text, sizeof text, "%04d-%02u-%02uT%02ld:%02ld:%02lldZ", int(date.year()),
      unsigned(date.month()), unsigned(date.day()), static_cast<long>(clock.hours().count()),
      static_cast<long>(clock.minutes().count()), static_cast<long long>(clock.seconds().count()));
  return text;
}

ImageFiles render_image_files(const lockfiles::Lockfile& lock_in, const ImageOptions& options) {
  const lockfiles::Lockfile lock = lockfiles::canonical(lock_in);
  const ImagePlan plan = detail::plan_image(lock, options);
  static const std::regex user_pattern("^[a-z_][a-z0-9_-]{0,31}$");
  if (!std::regex_match(options.user, user_pattern)) {
    throw core::Error(core::ExitCode::bad_input,
                      "`" + options.user + "` is not a user name useradd accepts",
                      "use lower-case letters, digits, `_` and `-`, starting with a letter");
  }
  ImageFiles files = context_files(plan, options);
  std::string& out = files.dockerfile;
  out += "# Generated by bevenv from " + options.lockfile_name;
  if (!lock.profile.empty()) out += " (profile " + lock.profile + ")";
  out += "; do not edit by hand.\n";
  out += "# Input hash: " + lock.input_hash + "\n";
  out += "# Layers run from the slowest-changing (base, Python, locked packages, compiled\n";
  out += "# dependencies) to the project source, so a code change rebuilds only the last layers.\n";
  out += "FROM " + plan.base_image + "\n";
  out += "SHELL [\"/bin/bash\", \"-o\", \"pipefail\", \"-c\"]\n";
  out += "ARG DEBIAN_FRONTEND=noninteractive\n\n";
  out += python_step(plan, !plan.dependency_builds.empty() || !plan.project_builds.empty());
  out += environment_step(lock);
  // Early, where it changes nothing after it, and not beside the self-check's RUN (DL3059).
  const std::string& user = options.user;
  out += "RUN useradd --no-log-init --create-home --uid " + std::to_string(options.uid) +
         " --shell /bin/bash " + user + "\n";
  out += locked_install_steps(plan, files);
  for (const auto& b : plan.dependency_builds) out += "\n" + build_step(b);
  if (options.with_probe) {
    // The context stores it with mode 0755; COPY keeps the mode.
    out += "\nCOPY " + std::string(kProbeName) + " /usr/local/bin/" + kProbeName + "\n";
  }
  // Before the project source: a broken environment fails before the slow project builds, and
  // this layer stays cached when only the project changes.
  out += verify_step(options.with_probe, !plan.project_builds.empty());
  if (!plan.project_dir.empty()) {
    out += project_steps(plan, options.with_probe);
  } else {
    out += "WORKDIR /home/" + user + "\n";
  }
  out += "\n" + labels(lock, plan, options);
  // Numeric, so that runtimes checking `runAsNonRoot` can verify it without the image's passwd.
  out += "USER " + std::to_string(options.uid) + "\n";
  return files;
}

}  // namespace bevenv::containers
