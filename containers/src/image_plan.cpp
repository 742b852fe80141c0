#include "image_plan.hpp"

#include <algorithm>
#include <regex>

#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/core/outside_text.hpp"
#include "bevenv/lockfiles/export.hpp"
#include "bevenv/util/text.hpp"
#include "safe_text.hpp"

namespace bevenv::containers::detail {
namespace {

using core::Error;
using core::ExitCode;
using lockfiles::SourceKind;

void check_model(const lockfiles::Lockfile& lock) {
  const auto problems = lockfiles::validate(lock);
  if (problems.empty()) return;
  std::vector<std::string> causes;
  for (const auto& p : problems) causes.push_back("`" + p.field + "`: " + p.message);
  throw Error(ExitCode::bad_input,
              "the lockfile breaks " + std::to_string(problems.size()) +
                  " rule(s) of the lockfile format; first: " + causes.front(),
              "re-create it with `bevenv lock`", causes);
}

std::string python_minor_of(const std::string& python) {
  static const std::regex pattern(R"(^(3\.[0-9]{1,2})(\.[0-9]+)?$)");
  std::smatch match;
  if (!std::regex_search(python, match, pattern)) {
    throw Error(ExitCode::bad_input,
                "lockfile field `target.python`: expected a CPython 3 version like `3.8.18`, "
                "found `" +
                    python + "`",
                "re-create the lockfile with `bevenv lock --python 3.X`");
  }
  return match[1].str();
}

// A URL the image build fetches (a package's or a build's source): it must be served over HTTP.
void require_fetchable_url(const std::string& url, const std::string& field) {
  if (core::is_url_text(url) && core::is_remote_url(url)) return;
  throw Error(ExitCode::bad_input,
              "lockfile field `" + field + "`: expected an http(s) URL an image build can fetch",
              "re-create the lockfile with `bevenv lock` against an index served over HTTP");
}

void check_package_text(const lockfiles::Package& p, std::size_t index) {
  const std::string at = "package[" + std::to_string(index) + "]";
  check_single_line(p.variant, at + ".variant");
  check_source_url(p.source.url, at + ".source.url");
  if (p.source.kind == SourceKind::path || p.source.url.starts_with("file:") ||
      p.source.url.starts_with("/")) {
    throw Error(ExitCode::bad_input,
                "package `" + p.name + "` comes from `" + p.source.url +
                    "` on this machine, which an image build cannot reach",
                "serve the directory over HTTP (e.g. `python3 -m http.server`) and lock against "
                "that URL as a find-links page");
  }
  if (p.markers) check_single_line(*p.markers, at + ".markers");
  // A package without a recorded sha256 is pinned by its artifact's URL (in a context file, never
  // a shell word), which the build must be able to fetch.
  const lockfiles::Artifact* pinned = lockfiles::pinned_artifact(p);
  if (pinned == nullptr || lockfiles::hash_checkable(p)) return;
  require_fetchable_url(pinned->url, at + ".artifacts[0].url");
}

// pip looks at PyPI only when the lockfile says a package comes from there: a name that also
// exists on PyPI cannot be swapped in for one from a private index or page.
std::string index_option(const std::vector<const lockfiles::Package*>& packages) {
  std::string first_index;
  for (const auto* p : packages) {
    if (p->source.kind == SourceKind::pypi) return "";
    if (p->source.kind == SourceKind::index && first_index.empty()) first_index = p->source.url;
  }
  return first_index.empty() ? "--no-index" : "--index-url " + first_index;
}

void plan_index_options(ImagePlan& plan) {
  std::vector<const lockfiles::Package*> hashed;
  std::vector<const lockfiles::Package*> unhashed;
  for (const auto& p : plan.installable.packages) {
    // An unhashed package pinned by its file's URL needs no index at all.
    if (lockfiles::hash_checkable(p))
      hashed.push_back(&p);
    else if (lockfiles::pinned_artifact(p) == nullptr)
      unhashed.push_back(&p);
  }
  plan.pip_index_option = index_option(hashed);
  plan.unhashed_index_option = index_option(unhashed);
}

void check_environment(const lockfiles::Environment& env) {
  for (const auto& [name, value] : env.variables) {
    check_single_line(value, "environment.variables." + name);
  }
  check_single_line(env.torch_cuda_arch_list, "environment.torch_cuda_arch_list");
  check_single_line(env.cuda, "environment.cuda");
}

std::string base_image_of(const lockfiles::Lockfile& lock, const ImageOptions& options) {
  if (options.base_image) {
    check_image_reference(*options.base_image, "--base-image");
    return *options.base_image;
  }
  const auto& base = lock.environment.base_image;
  if (base.tag.empty()) {
    throw Error(ExitCode::bad_input, "the lockfile names no base image",
                "pass `--base-image REF` (e.g. `nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04`), "
                "or lock a profile that has one");
  }
  check_image_reference(base.tag, "environment.base_image.tag");
  if (!base.digest) return base.tag;
  if (!is_sha256_digest(*base.digest)) {
    check_single_line(*base.digest, "environment.base_image.digest");
    throw Error(ExitCode::bad_input,
                "lockfile field `environment.base_image.digest`: expected `sha256:` and 64 hex "
                "digits, found `" +
                    *base.digest + "`",
                "re-create the lockfile with `bevenv lock`");
  }
  // A tag that already carries a digest keeps it; otherwise both travel (readable and pinned).
  if (base.tag.find('@') != std::string::npos) return base.tag;
  return base.tag + "@" + *base.digest;
}

// A build whose source is an archive from an index: pip fetches it by URL from a requirements
// file and checks its sha256, so no part of the served URL is ever a shell word.
void plan_source_build(const lockfiles::BuildStep& b, const std::string& at,
                       PlannedBuild& planned) {
  const lockfiles::Artifact& source = *b.source;
  require_fetchable_url(source.url, at + ".source.url");
  // A bare URL line, not `NAME @ URL`: pip splits a named line at its first `;` (a marker), but a
  // URL line only at `; `, and an RFC 3986 URL holds no space.
  const std::string name = core::normalize_name(b.package);
  planned.requirement_file = "build-" + name + ".txt";
  planned.requirement_text = "# Generated by bevenv: the source of build `" + b.name + "` (`" +
                             name + "`).\n" + source.url +
                             " \\\n    --hash=sha256:" + source.sha256.value_or("") + "\n";
}

// A build from a source tree pinned by commit: pip clones it at that commit, from a
// requirements file, so the URL is never a shell word either.
void plan_vcs_build(const lockfiles::BuildStep& b, const std::string& at, PlannedBuild& planned) {
  if (!core::is_vcs_pin(*b.vcs)) {
    throw Error(ExitCode::bad_input,
                "lockfile field `" + at +
                    ".vcs`: expected `git+https://HOST/REPO.git@` and a "
                    "40-digit commit",
                "re-create the lockfile with `bevenv lock`");
  }
  const std::string name = core::normalize_name(b.package);
  planned.requirement_file = "build-" + name + ".txt";
  planned.requirement_text = "# Generated by bevenv: the source of build `" + b.name + "`.\n" +
                             name + " @ " + *b.vcs + "\n";
}

std::string join_path(const std::string& base, const std::string& rest) {
  if (rest.starts_with("/")) return rest;
  if (rest.empty() || rest == ".") return base;
  return base + (base.ends_with("/") ? "" : "/") + rest;
}

}  // namespace

ImagePlan plan_image(const lockfiles::Lockfile& model, const ImageOptions& options) {
  const lockfiles::Lockfile lock = lockfiles::canonical(model);
  check_model(lock);
  ImagePlan plan;
  plan.python_minor = python_minor_of(lock.target.python);
  plan.base_image = base_image_of(lock, options);
  check_environment(lock.environment);
  check_single_line(lock.profile, "profile");
  check_single_line(lock.input_hash, "input_hash");
  for (std::size_t i = 0; i < lock.packages.size(); ++i) check_package_text(lock.packages[i], i);

  // A build without a working directory compiles a dependency: the package it follows that has
  // no file pip could fetch is the one it produces (mmcv-full built with MMCV_WITH_OPS=1).
  std::vector<std::string> produced;
  for (std::size_t i = 0; i < lock.builds.size(); ++i) {
    const auto& b = lock.builds[i];
    const std::string at = "build[" + std::to_string(i) + "]";
    check_single_line(b.name, at + ".name");
    check_single_line(b.cuda_arch_list, at + ".cuda_arch_list");
    for (std::size_t c = 0; c < b.commands.size(); ++c) {
      check_command(b.commands[c], at + ".commands[" + std::to_string(c) + "]");
    }
    for (const auto& [name, value] : b.env) check_single_line(value, at + ".env." + name);
    PlannedBuild planned;
    planned.step = b;
    if (b.source || b.vcs) {
      if (b.source)
        plan_source_build(b, at, planned);
      else
        plan_vcs_build(b, at, planned);
      produced.push_back(core::normalize_name(b.package));
      planned.workdir = "/opt/bevenv/build/" + core::normalize_name(b.name);
      check_image_path(planned.workdir, at + ".name");
      plan.dependency_builds.push_back(planned);
      continue;
    }
    if (!b.package.empty()) produced.push_back(core::normalize_name(b.package));
    if (b.working_dir) {
      plan.project_builds.push_back(planned);
      continue;
    }
    // The package the build installs, or (lockfiles that predate `package`) the first package it
    // follows that has no file pip could fetch.
    const std::vector<std::string> candidates =
        b.package.empty() ? b.after : std::vector<std::string>{b.package};
    for (const auto& after : candidates) {
      const lockfiles::Package* p = lock.find_package(after);
      if (p == nullptr || !p->artifacts.empty()) continue;
      planned.source_package = p->name;
      planned.source_version = p->version;
      if (p->source.kind == SourceKind::find_links) {
        planned.source_option = "--no-index --find-links " + util::sh_word(p->source.url);
      } else if (p->source.kind == SourceKind::index) {
        planned.source_option = "--index-url " + util::sh_word(p->source.url);
      }
      if (b.package.empty()) produced.push_back(core::normalize_name(p->name));
      break;
    }
    planned.workdir = "/opt/bevenv/build/" + core::normalize_name(b.name);
    check_image_path(planned.workdir, at + ".name");
    plan.dependency_builds.push_back(planned);
  }

  plan.installable = lock;
  auto& packages = plan.installable.packages;
  packages.erase(std::remove_if(packages.begin(), packages.end(),
                                [&](const lockfiles::Package& p) {
                                  const bool built =
                                      std::find(produced.begin(), produced.end(),
                                                core::normalize_name(p.name)) != produced.end();
                                  if (built) plan.built_in_image.push_back(p.name);
                                  return built;
                                }),
                 packages.end());

  if (!plan.project_builds.empty() || options.with_project) {
    plan.project_dir = options.project_dir;
    if (plan.project_dir.empty() && !plan.project_builds.empty()) {
      plan.project_dir = *plan.project_builds.front().step.working_dir;
    }
    if (plan.project_dir.empty() || !plan.project_dir.starts_with("/")) {
      const std::string name = lock.profile.empty() ? "project" : lock.profile;
      plan.project_dir = join_path("/workspace/" + name, plan.project_dir);
    }
    check_image_path(plan.project_dir,
                     options.project_dir.empty() ? "build.working_dir" : "--project-dir");
  }
  for (auto& planned : plan.project_builds) {
    planned.workdir = join_path(plan.project_dir, *planned.step.working_dir);
    check_image_path(planned.workdir, "build `" + planned.step.name + "`.working_dir");
  }
  if (!plan.project_builds.empty() && !options.with_project) {
    const auto& first = plan.project_builds.front().step;
    throw Error(ExitCode::bad_input,
                "build `" + first.name + "` runs in the project source (`" +
                    plan.project_builds.front().workdir + "`), and the context has none",
                "pass `--context-dir DIR` with the project's checkout (the directory holding its "
                "setup.py)");
  }

  plan_index_options(plan);
  return plan;
}

}  // namespace bevenv::containers::detail
