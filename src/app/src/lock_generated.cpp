#include "lock_generated.hpp"

#include <algorithm>
#include <cctype>

#include "bevenv/core/name.hpp"
#include "bevenv/util/text.hpp"
#include "lock_index.hpp"

namespace bevenv::app {

const matrix::PackageVersion* matrix_record_of(const matrix::Matrix& matrix,
                                               const lockfiles::Package& p) {
  const matrix::Package* package = matrix.find_package(p.name);
  if (package == nullptr) return nullptr;
  for (const auto& build : package->versions) {
    if (build.install_version() == p.version && build.version.local_string() == p.variant)
      return &build;
  }
  return nullptr;
}

FileFit::FileFit(const TargetFacts& target)
    : ranking_(index::TargetTags::from(target.python, target.platform, target.glibc)) {}

namespace {

// The tag part of a wheel's file name (`py3-none-any` of `six-1.16.0-py3-none-any.whl`): its
// last three fields, which a build tag before them does not change; empty for other names.
std::string_view wheel_tags(std::string_view filename) {
  constexpr std::string_view kSuffix = ".whl";
  if (filename.size() <= kSuffix.size() || !filename.ends_with(kSuffix)) return {};
  const std::string_view stem = filename.substr(0, filename.size() - kSuffix.size());
  std::size_t at = stem.size();
  for (int dashes = 0; dashes < 3; ++dashes) {
    at = stem.rfind('-', at == 0 ? 0 : at - 1);
    if (at == std::string_view::npos || at == 0) return {};
  }
  return stem.substr(at + 1);
}

}  // namespace

std::optional<std::size_t> FileFit::wheel_rank(std::string_view filename, std::string_view tags) {
  if (const auto known = by_tags_.find(tags); known != by_tags_.end()) return known->second;
  const auto wheel = index::parse_wheel_filename(filename);
  const std::optional<std::size_t> rank = wheel ? ranking_.rank(*wheel) : std::nullopt;
  // Only a name that parses speaks for its tag set: a malformed one is judged alone.
  if (wheel) by_tags_.emplace(tags, rank);
  return rank;
}

bool FileFit::any(const matrix::PackageVersion& record) {
  for (const auto& artifact : record.artifacts) {
    if (const std::string_view tags = wheel_tags(artifact.filename); !tags.empty()) {
      if (wheel_rank(artifact.filename, tags)) return true;
    } else if (index::parse_sdist_filename(artifact.filename, record.name)) {
      return true;
    }
  }
  return false;
}

const matrix::Artifact* FileFit::best(const matrix::PackageVersion& record) {
  const matrix::Artifact* best = nullptr;
  std::size_t best_rank = 0;
  const matrix::Artifact* sdist = nullptr;
  // Artifacts are sorted by filename, so ties go to the first name: the choice is stable.
  for (const auto& artifact : record.artifacts) {
    if (const std::string_view tags = wheel_tags(artifact.filename); !tags.empty()) {
      const auto rank = wheel_rank(artifact.filename, tags);
      if (rank && (best == nullptr || *rank < best_rank)) {
        best = &artifact;
        best_rank = *rank;
      }
    } else if (sdist == nullptr && index::parse_sdist_filename(artifact.filename, record.name)) {
      sdist = &artifact;
    }
  }
  return best != nullptr ? best : sdist;
}

const matrix::Artifact* sdist_of(const matrix::PackageVersion& record) {
  for (const auto& artifact : record.artifacts) {
    if (index::parse_sdist_filename(artifact.filename, record.name)) return &artifact;
  }
  return nullptr;
}

lockfiles::Artifact lock_artifact(const matrix::Artifact& from) {
  lockfiles::Artifact artifact;
  artifact.filename = from.filename;
  artifact.url = from.url;
  artifact.sha256 = util::ascii_lower(from.sha256);
  artifact.size = from.size;
  return artifact;
}

void attach_matrix_artifacts(const LockInputs& inputs, lockfiles::Lockfile& lock) {
  FileFit files(inputs.target);
  for (auto& package : lock.packages) {
    const matrix::PackageVersion* record = matrix_record_of(inputs.matrix, package);
    if (record == nullptr || record->artifacts.empty()) continue;
    // A curated source build already has its step (and, building its sdist, that file).
    if (record->build == matrix::BuildKind::source) continue;
    const matrix::Artifact* best = files.best(*record);
    if (best == nullptr) continue;  // the translation kept such records out of the solution
    const lockfiles::Artifact artifact = lock_artifact(*best);
    package.artifacts = {artifact};
    if (wheel_tags(best->filename).empty()) {
      lock.builds.push_back(sdist_build(package, artifact));
    }
  }
  lockfiles::canonicalize(lock);
}

}  // namespace bevenv::app
