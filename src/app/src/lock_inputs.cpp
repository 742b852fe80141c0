#include "lock_inputs.hpp"

#include <algorithm>

#include "bevenv/app/project_file.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/core/sha256.hpp"
#include "bevenv/core/text_input.hpp"
#include "bevenv/matrix/loader.hpp"
#include "lock_recorded.hpp"
#include "lock_target.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;
using core::Error;
using core::ExitCode;

// The package sources the flags give, as the lock records them (`index URL`, `find-links DIR`).
std::vector<std::string> index_sources_of(const LockOptions& options) {
  std::vector<std::string> out;
  if (options.index_url) out.push_back("index " + *options.index_url);
  for (const auto& url : options.extra_index_urls) out.push_back("extra-index " + url);
  for (const auto& url : options.find_links) out.push_back("find-links " + url);
  if (options.no_index) out.push_back("no-index");
  return out;
}

// Hashes what the matrix was loaded from, so that an edited overlay makes a lock stale.
std::string digest_matrix_sources(const MatrixOptions& options) {
  core::Sha256 hasher;
  hasher.update(matrix::embedded_digest());
  for (const auto& dir : matrix_overlays(options)) {
    std::vector<fs::path> files;
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(dir, ignored)) {
      // As the matrix loader: only regular files are overlays (a FIFO would never end).
      if (entry.is_regular_file(ignored) && entry.path().extension() == ".toml") {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      const std::string text =
          core::read_regular_file(path, "remove it from the overlay directory");
      hasher.update(path.filename().string() + "\n" + std::to_string(text.size()) + "\n");
      hasher.update(text);
    }
  }
  return hasher.hex_digest();
}

core::Requirement parse_requirement(const std::string& text, const std::string& origin) {
  auto parsed = core::Requirement::parse(text);
  if (!parsed) {
    throw Error(ExitCode::bad_input,
                origin + ": invalid requirement `" + text + "`: " + parsed.error().to_string(),
                "write a PEP 508 requirement such as `torch==1.10.1` or `numpy<1.24`");
  }
  return std::move(parsed).value();
}

std::string profile_names(const matrix::Matrix& m) {
  std::string names;
  for (const auto& [name, profile] : m.profiles)
    names += (names.empty() ? "`" : ", `") + name + "`";
  return names;
}

}  // namespace

LockInputs gather_lock_inputs(const LockOptions& options, MatrixReleases releases) {
  LockInputs inputs;
  inputs.index_sources = index_sources_of(options);
  // Sources given decide what exists: the generated layer's releases (a PyPI snapshot) stay out
  // of the matrix, and a name only they described is read from the sources like any other.
  // Curated records stay, with what the snapshot filled in.
  MatrixOptions matrix_options = options.matrix;
  matrix_options.without_generated_releases = !inputs.index_sources.empty();
  matrix_options.without_stood_for =
      releases == MatrixReleases::without_stood_for && inputs.index_sources.empty();
  inputs.without_stood_for = matrix_options.without_stood_for;
  inputs.matrix = load_matrix_or_throw(matrix_options);
  inputs.matrix_digest = digest_matrix_sources(options.matrix);

  std::optional<ProjectFile> project;
  if (options.project_file) {
    project = read_project_file(*options.project_file);
  } else if (fs::exists("bevenv.toml")) {
    project = read_project_file("bevenv.toml");
  }

  std::optional<std::string> profile_name = options.profile;
  TargetOverrides target;
  if (project) {
    if (!profile_name) profile_name = project->profile;
    target = project->target;
  }
  // The target an earlier lock recorded goes over `bevenv.toml`'s, with its own origins.
  overlay_target(target, options.recorded_target);
  if (project) {
    for (const auto& text : project->requirements) {
      inputs.requirements.push_back(
          {parse_requirement(text, project->path.string()), project->path.filename().string()});
    }
    if (project->requirements_file) {
      for (const auto& text : read_requirements_file(*project->requirements_file)) {
        inputs.requirements.push_back(
            {parse_requirement(text, project->requirements_file->string()),
             project->requirements_file->filename().string()});
      }
    }
  }
  if (options.requirements_file) {
    for (const auto& text : read_requirements_file(*options.requirements_file)) {
      inputs.requirements.push_back({parse_requirement(text, options.requirements_file->string()),
                                     options.requirements_file->filename().string()});
    }
  }
  for (const auto& text : options.requirements) {
    inputs.requirements.push_back({parse_requirement(text, "--require"), "the request"});
  }

  if (profile_name) {
    inputs.profile = &profile_or_throw(inputs.matrix, *profile_name);
  } else if (inputs.requirements.empty()) {
    throw Error(ExitCode::bad_input, "nothing to lock: no profile and no requirements",
                "add `--profile NAME` (one of " + profile_names(inputs.matrix) +
                    ") or `--require SPEC`, or write them in `bevenv.toml`");
  }
  std::optional<std::string> profile_python;
  if (inputs.profile != nullptr && !inputs.profile->python.empty()) {
    profile_python = inputs.profile->python;
  }
  TargetChoice choice = choose_target(target, options.target, inputs.matrix, inputs.profile);
  inputs.target = resolve_target(choice.overrides, profile_python);
  inputs.target_notes = std::move(choice.notes);
  inputs.target_warnings = std::move(choice.warnings);
  inputs.recorded = inputs_to_record(options, inputs.target, inputs.profile != nullptr);

  inputs.output = options.output.value_or(
      project && project->lockfile ? *project->lockfile : std::filesystem::path("bevenv.lock"));
  return inputs;
}

std::string input_hash(const LockInputs& inputs) {
  // A versioned, line-oriented canonical text: any change of meaning changes a line.
  std::string text = "bevenv-lock-inputs 1\n";
  text += "matrix " + inputs.matrix.version + " " + inputs.matrix_digest + "\n";
  text += "profile " + (inputs.profile ? inputs.profile->name : std::string("-")) + "\n";
  std::vector<std::string> requirements;
  for (const auto& r : inputs.requirements) requirements.push_back(r.requirement.to_string());
  std::sort(requirements.begin(), requirements.end());
  for (const auto& r : requirements) text += "require " + r + "\n";
  const TargetFacts& t = inputs.target;
  text += "python " + t.python.to_string() + "\n";
  text += "platform " + t.platform + "\n";
  text += "glibc " + t.glibc.to_string() + "\n";
  text += "cuda-driver " + (t.cuda_driver ? t.cuda_driver->to_string() : std::string("-")) + "\n";
  for (const auto& gpu : t.gpus) text += "gpu " + gpu.name() + "\n";
  for (const auto& source : inputs.index_sources) text += "source " + source + "\n";
  return "sha256:" + core::sha256_hex(text);
}

GatheredInputs::GatheredInputs(const LockOptions& options, LockInputs first)
    : options_(options), first_(std::move(first)) {}

const LockInputs& GatheredInputs::whole() {
  if (!(*first_).without_stood_for) return *first_;
  if (!whole_) whole_.emplace(gather_lock_inputs(options_, MatrixReleases::all));
  return **whole_;
}

}  // namespace bevenv::app
