#pragma once
// The compatibility matrix as typed records: packages (versions x variants), rules, toolkits,
// profiles (with `extends` resolved) and observed probe results. Every record keeps its Origin.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/requirement.hpp"
#include "bevenv/core/specifier.hpp"
#include "bevenv/core/version.hpp"

namespace bevenv::matrix {

// Where a record came from: the compiled-in data, an overlay directory, or a probe report.
enum class Layer : std::uint8_t { embedded, overlay, observed };
std::string_view layer_name(Layer layer);

struct Origin {
  std::string file;  // as shown to users: `matrix/data/torch.toml`, `overlay/site.toml`
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  Layer layer = Layer::embedded;
  std::string to_string() const;  // `matrix/data/torch.toml:12:1`
};

enum class BuildKind : std::uint8_t { wheel, sdist, source };
std::string_view build_kind_name(BuildKind kind);

// A compiled build step (mmcv-full with `MMCV_WITH_OPS=1`, BEVFusion's `setup.py develop`).
struct BuildStep {
  std::string name;
  std::string package;  // normalized name of the package the step produces
  std::string command;  // empty when `vcs` says what to install
  // `git+https://HOST/REPO.git@<40-hex commit>`: the source tree the step installs, as data; the
  // image quotes it, so it never has to appear inside a curated command.
  std::string vcs;
  std::string workdir;  // empty: the package's source tree
  std::map<std::string, std::string, std::less<>> env;
  std::string note;
  Origin origin;
};

// One file of a release as the generated layer records it (a wheel for one set of tags, or the
// sdist).
struct Artifact {
  std::string filename;
  std::string url;
  std::string sha256;                 // 64 lower-case hex digits
  std::optional<std::uint64_t> size;  // bytes
  bool operator==(const Artifact&) const = default;
};

// Where and when a generated record was read (`bevenv matrix snapshot`).
struct Provenance {
  std::string index;  // `https://pypi.org/simple`
  std::string read;   // the snapshot's date, `2026-12-01`
  bool operator==(const Provenance&) const = default;
};

// One installable version of a package. CUDA builds are distinct versions with a local part
// (`1.10.1+cu113`). Where an index publishes several builds under one public version (OpenMMLab
// find-links pages), the local part is a matrix label and `local_is_published` is false.
struct PackageVersion {
  std::string name;  // normalized (PEP 503)
  core::Version version;
  bool local_is_published = true;
  std::vector<core::Requirement> requirements;
  core::SpecifierSet python;          // Python versions the build supports; empty: any
  std::optional<core::Version> cuda;  // CUDA runtime the build carries (`11.3`)
  std::vector<std::string> sass;      // `sm_86`: architectures with machine code
  std::vector<std::string> ptx;       // `compute_86`: PTX the driver can JIT for newer GPUs
  std::string index_url;              // PEP 503 index serving it; empty: PyPI
  std::string find_links;             // find-links page serving it
  std::string artifact_url;
  std::string sha256;
  std::vector<Artifact> artifacts;  // generated: every file of the release, by filename
  // Set on records of the generated layer: such a record never replaces a curated one of the same
  // version, it fills it in (merge.cpp).
  std::optional<Provenance> generated;
  BuildKind build = BuildKind::wheel;
  std::optional<BuildStep> build_step;  // for BuildKind::source
  bool deps_complete = false;           // false: `requirements` lists the deps that matter, not all
  std::string note;
  std::vector<std::string> sources;
  Origin origin;

  // The text an installer pins: with the local part only when the index publishes it.
  std::string install_version() const;
  std::string id() const;  // `torch@1.10.1+cu113`
};

struct Package {
  std::string name;                      // normalized
  std::vector<PackageVersion> versions;  // ascending PEP 440 order
  const PackageVersion* find(const core::Version& v) const;
};

enum class RuleKind : std::uint8_t { requires_, conflicts, prefer };
std::string_view rule_kind_name(RuleKind kind);

struct PackageCondition {
  std::string name;  // normalized
  core::SpecifierSet specifier;
  bool matches(const core::Version& v) const;  // pre-releases and local versions included
};

// Conditions on the machine the environment is for; an unset field is no condition.
struct TargetCondition {
  std::optional<core::SpecifierSet> python;
  std::optional<core::SpecifierSet> cuda_driver;
  std::vector<std::string> gpu_arch;  // holds when the target GPU is one of these (`sm_89`)
  std::vector<std::string> platform;  // `linux`
  bool empty() const;
};

// Spack-style: when every `when` condition holds, `then` must hold (requires), must not hold
// (conflicts), or should hold if possible (prefer).
struct Rule {
  std::string id;
  RuleKind kind = RuleKind::conflicts;
  std::vector<PackageCondition> when_packages;
  TargetCondition when_target;
  std::vector<std::string> when_profiles;  // holds inside these profiles or ones extending them
  core::Requirement then;
  std::string message;
  std::string symptom;
  std::string fix;
  std::string failure;  // `F2`, empty when the rule prevents no catalogued field failure
  std::string note;
  std::vector<std::string> sources;
  Origin origin;
};

struct Toolkit {
  core::Version version;                             // `11.3`
  core::Version min_driver;                          // minimum Linux driver for the full toolkit
  std::optional<core::Version> minor_compat_driver;  // minor-version compatibility floor
  std::vector<std::string> sm;  // architectures nvcc of this toolkit can target
  std::vector<std::string> images;
  std::vector<std::string> sources;
  Origin origin;
  bool supports(std::string_view sm_arch) const;
};

enum class MemoryBasis : std::uint8_t { measured, reported, estimate };
std::string_view memory_basis_name(MemoryBasis basis);

struct Profile {
  std::string name;
  std::string summary;
  std::string extends;               // direct parent, empty when none
  std::vector<std::string> lineage;  // self, parent, grandparent, ...
  std::string python;                // `3.8`
  std::string cuda;                  // toolkit version, empty for CPU-only profiles
  std::string base_image;
  std::vector<core::Requirement> requirements;  // merged along `extends`, child wins per name
  std::vector<std::string> indexes;
  std::vector<std::string> find_links;
  std::map<std::string, std::string, std::less<>> env;
  std::vector<BuildStep> builds;
  std::optional<double> train_gpu_memory_gib;
  MemoryBasis memory_basis = MemoryBasis::estimate;
  std::optional<std::int64_t> dataloader_workers_per_gpu;
  bool offline = false;  // every reachable record has complete dependencies
  std::vector<std::string> sources;
  Origin origin;
  bool is_a(std::string_view profile_name) const;  // self or an ancestor
};

enum class Outcome : std::uint8_t { ok, fail };

struct Observed {
  std::string host;  // host fingerprint
  std::string date;  // ISO date
  std::string package;
  core::Version version;
  std::map<std::string, std::string, std::less<>> target;  // python, cuda_driver, gpu_arch, ...
  Outcome outcome = Outcome::ok;
  std::string check;
  std::string detail;
  Origin origin;
};

struct Matrix {
  std::string version;  // `matrix.version` of the data, e.g. `2026.11.1`
  std::int64_t schema = 1;
  std::map<std::string, Package, std::less<>> packages;  // by normalized name
  std::vector<Rule> rules;                               // sorted by id
  std::vector<Toolkit> toolkits;                         // ascending version
  std::map<std::string, Profile, std::less<>> profiles;
  std::vector<Observed> observed;

  const Package* find_package(std::string_view name) const;  // any spelling
  const PackageVersion* find_version(std::string_view name, const core::Version& v) const;
  const Rule* find_rule(std::string_view id) const;
  const Toolkit* find_toolkit(const core::Version& v) const;
  const Profile* find_profile(std::string_view name) const;
  // Rules whose `when` or `then` names this package version.
  std::vector<const Rule*> rules_touching(std::string_view name, const core::Version& v) const;
  std::size_t version_count() const;
};

}  // namespace bevenv::matrix
