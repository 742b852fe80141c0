#include "stand_ins.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/name.hpp"

namespace bevenv::matrix::detail {
namespace {

bool same_marker(const core::Marker& a, const core::Marker& b) {
  return a.identity() == b.identity() || a.to_string() == b.to_string();
}

bool same_requirement(const core::Requirement& a, const core::Requirement& b) {
  return a.name == b.name && a.extras == b.extras && a.url == b.url &&
         a.specifier.same_as_written(b.specifier) && same_marker(a.marker, b.marker);
}

bool same_requirements(const std::vector<core::Requirement>& a,
                       const std::vector<core::Requirement>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), same_requirement);
}

// A file's name without the release's version: `torch-{}-cp38-cp38-linux_x86_64.whl`. A wheel's
// version is its second field (names in wheels have no `-`), an sdist's follows its last `-`.
std::string without_version(std::string_view filename) {
  if (filename.ends_with(".whl")) {
    const std::size_t first = filename.find('-');
    const std::size_t second = filename.find('-', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos) return "";
    return std::string(filename.substr(0, first + 1)) + std::string(filename.substr(second));
  }
  std::size_t stem = filename.size();
  for (const std::string_view ext : {".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tar"}) {
    if (filename.ends_with(ext)) {
      stem -= ext.size();
      break;
    }
  }
  const std::size_t dash = filename.substr(0, stem).rfind('-');
  if (dash == std::string_view::npos) return "";
  return std::string(filename.substr(0, dash + 1)) + std::string(filename.substr(stem));
}

// The files of a release as a target sees them; empty where one name does not read.
std::vector<std::string> file_shapes(const PackageVersion& release) {
  std::vector<std::string> out;
  for (const Artifact& artifact : release.artifacts) {
    std::string shape = without_version(artifact.filename.view());
    if (shape.empty()) return {};
    out.push_back(std::move(shape));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Everything a record takes from a release but its version, alike in both.
bool releases_alike(const PackageVersion& newer, const PackageVersion& older) {
  if (newer.version == older.version ||
      newer.version.is_prerelease() != older.version.is_prerelease() ||
      newer.build != older.build || newer.build_step || older.build_step ||
      newer.cuda != older.cuda || newer.sass != older.sass || newer.ptx != older.ptx ||
      newer.index_url != older.index_url || newer.find_links != older.find_links ||
      !newer.python.same_as_written(older.python) ||
      !same_requirements(newer.requirements, older.requirements))
    return false;
  if (newer.artifacts.empty() || older.artifacts.empty())
    return newer.artifacts.empty() && older.artifacts.empty();
  const std::vector<std::string> shapes = file_shapes(newer);
  return !shapes.empty() && shapes == file_shapes(older);
}

// Every specifier the matrix states on each package, once per distinct text, and the packages
// some requirement asks extras of.
class StatedSpecifiers {
 public:
  explicit StatedSpecifiers(const Matrix& matrix) {
    for (const auto& [name, package] : matrix.packages) {
      for (const PackageVersion& release : package.versions) {
        for (const core::Requirement& r : release.requirements) add(r);
      }
    }
    for (const Rule& rule : matrix.rules) {
      add(rule.then);
      for (const PackageCondition& c : rule.when_packages) add(c.name, c.specifier);
    }
    for (const auto& [profile_name, profile] : matrix.profiles) {
      for (const core::Requirement& r : profile.requirements) add(r);
      for (const core::Requirement& r : profile.preferred) add(r);
    }
  }

  bool asks_extras(const std::string& name) const { return with_extras_.count(name) != 0; }

  // Whether some specifier on `name` answers `a` and `b` differently (pre-releases included, as
  // the solver reads them).
  bool tell_apart(const std::string& name, const core::Version& a, const core::Version& b) const {
    const auto found = on_.find(name);
    if (found == on_.end()) return false;
    return std::any_of(found->second.begin(), found->second.end(), [&](const auto& entry) {
      return entry.second->contains(a, true) != entry.second->contains(b, true);
    });
  }

 private:
  void add(const core::Requirement& r) {
    if (!r.extras.empty()) with_extras_.insert(core::normalize_name(r.name));
    add(r.name, r.specifier);
  }
  void add(std::string_view name, const core::SpecifierSet& set) {
    if (set.empty()) return;
    on_[core::normalize_name(name)].try_emplace(set.to_string(), &set);
  }

  // Name -> its distinct specifier sets, by their text.
  std::map<std::string, std::map<std::string, const core::SpecifierSet*>> on_;
  std::set<std::string> with_extras_;
};

// Newest first, as the solver keeps versions: a release stands in for the older ones of its
// run that it is alike to and that no specifier tells apart from it.
void mark_package(Package& package, const StatedSpecifiers& stated) {
  const PackageVersion* kept = nullptr;
  for (auto release = package.versions.rbegin(); release != package.versions.rend(); ++release) {
    release->newer_stands_for = kept != nullptr && releases_alike(*kept, *release) &&
                                !stated.tell_apart(package.name, kept->version, release->version);
    if (!release->newer_stands_for) kept = &*release;
  }
}

}  // namespace

void mark_stand_ins(Matrix& matrix) {
  forget_stand_ins(matrix);
  const StatedSpecifiers stated(matrix);
  for (auto& [name, package] : matrix.packages) {
    if (!stated.asks_extras(name)) mark_package(package, stated);
  }
}

void forget_stand_ins(Matrix& matrix) {
  for (auto& [name, package] : matrix.packages) {
    for (PackageVersion& release : package.versions) release.newer_stands_for = false;
  }
}

void leave_out_stood_for(Matrix& matrix) {
  for (auto& [name, package] : matrix.packages) {
    for (const PackageVersion& release : package.versions) {
      if (release.newer_stands_for) package.stood_for.push_back(release.version);
    }
    std::erase_if(package.versions, [](const PackageVersion& r) { return r.newer_stands_for; });
  }
}

}  // namespace bevenv::matrix::detail
