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
#include "bevenv/util/shared_list.hpp"
#include "bevenv/util/shared_text.hpp"

namespace bevenv::matrix {

// Where a record came from: the compiled-in data, an overlay directory, or a probe report.
enum class Layer : std::uint8_t { embedded, overlay, observed };
std::string_view layer_name(Layer layer);

struct Origin {
  // As shown to users: `matrix/data/torch.toml`, `overlay/site.toml`; shared by the records of a
  // file (thousands in the generated layer).
  util::SharedText file;
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
  std::string command;  // empty when `vcs` or `sdist` says what to install
  // `git+https://HOST/REPO.git@<40-hex commit>`: the source tree the step installs, as data; the
  // image quotes it, so it never has to appear inside a curated command.
  std::string vcs;
  // The step compiles the release's own sdist (`sdist = true`): the file the generated layer
  // records for the record's public version, fetched by URL and hash-checked, built with `env`.
  bool sdist = false;
  std::string workdir;  // empty: the package's source tree
  std::map<std::string, std::string, std::less<>> env;
  std::string note;
  Origin origin;
};

// One file of a release as the generated layer records it (a wheel for one set of tags, or the
// sdist).
// The texts are shared: the embedded matrix holds thousands of them, which its image lends out
// instead of copying.
struct Artifact {
  util::SharedText filename;
  util::SharedText url;
  util::SharedText sha256;            // 64 lower-case hex digits
  std::optional<std::uint64_t> size;  // bytes
  bool operator==(const Artifact&) const = default;
};

// Where and when a generated record was read (`bevenv matrix snapshot`).
struct Provenance {
  util::SharedText index;  // `https://pypi.org/simple`
  util::SharedText read;   // the snapshot's date, `2026-12-01`
  bool operator==(const Provenance&) const = default;
};

// One installable version of a package. CUDA builds are distinct versions with a local part
// (`1.10.1+cu113`). Where an index publishes several builds under one public version (OpenMMLab
// find-links pages), the local part is a matrix label and `local_is_published` is false.
struct PackageVersion {
  std::string name;  // normalized (PEP 503)
  core::Version version;
  bool local_is_published = true;
  // Shared: releases repeat their neighbours' lists (807 distinct among 4,764 generated ones).
  util::SharedList<core::Requirement> requirements;
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
  // For BuildKind::source. A generated record with `build = "source"` has none: it holds the
  // sdist of the curated source build of its version, and never stands alone (merge.cpp).
  std::optional<BuildStep> build_step;
  bool deps_complete = false;  // false: `requirements` lists the deps that matter, not all
  // Set where the load finds that the nearest newer release of the package without this flag
  // stands for this one in every solve (stand_ins.hpp): an offline lock that merges alike
  // versions makes no record of it.
  bool newer_stands_for = false;
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
  // The versions of the releases a load left out unread (LoadOptions::without_stood_for),
  // ascending: each is stood for by the nearest newer one in `versions`. Empty otherwise.
  std::vector<core::Version> stood_for;
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

// Conditions on the environment a failure or one of its fixes is about; an unset field is no
// condition. A package named here must be installed (where the installed set is known).
struct EnvCondition {
  std::optional<core::SpecifierSet> python;
  std::vector<PackageCondition> packages;
  // Fixes only: the doctor checks whose finding the fix answers (`gpu-arch`), and whether the
  // host is a container. Both hold only where doctor observed them, never for a pasted log.
  std::vector<std::string> checks;
  std::optional<bool> container;
  bool empty() const { return !python && packages.empty() && checks.empty() && !container; }
};

// What `fixes`, `applies` and `check` conditions are decided against. Unknown facts (a log
// pasted from elsewhere) do not rule a condition out.
struct FixContext {
  std::optional<core::Version> python;
  std::map<std::string, core::Version, std::less<>> packages;  // normalized name -> installed
  bool packages_known = false;    // true: a package absent from `packages` is not installed
  std::string check;              // the doctor check whose finding is being worded
  std::optional<bool> container;  // whether the inspected host is a container
  // The facts the finding observed: a fix naming `{sm}` fits only where `sm` is among them.
  std::vector<std::pair<std::string, std::string>> facts;
  bool holds(const EnvCondition& condition) const;
};

// A line of a log that shows the failure: it contains `literal` (cheap to look for) and, when
// `regex` is set, the regex (ECMAScript) matches near it. One of the two may be empty.
struct LogSignature {
  std::string literal;
  std::string regex;
};

// `{name}` in `text` is a fact of the finding (`{sm}`, `{driver}`); a fix holding one names the
// checks that supply it in `when.checks`.
struct FailureFix {
  EnvCondition when;  // empty: fits any environment
  std::string text;
  // `text` with each `{name}` replaced by its value in `facts`; unknown names stay as written.
  std::string render(const std::vector<std::pair<std::string, std::string>>& facts) const;
  // Whether every `{name}` in `text` has a value in `facts`.
  bool has_facts(const std::vector<std::pair<std::string, std::string>>& facts) const;
};

// Where a fix text's `{name}`s are: each span covers the braces, `name` what they enclose.
struct Placeholder {
  std::size_t offset = 0;
  std::size_t length = 0;
  std::string_view name;
};
// The placeholders of `text`, in order; nullopt when a brace does not belong to a `{name}` of
// lower-case letters and `_` (the loader refuses such a text).
std::optional<std::vector<Placeholder>> placeholders_of(std::string_view text);

// How doctor words the Python probe's check of a failure: "<package> <version> <ok|problem>".
struct FailureCheck {
  std::string package;  // normalized
  std::string ok;
  std::string problem;
  bool warning = false;  // a failing check is a warning, not a problem (no pin's fault)
};

// One known failure (matrix/data/failures.toml): the only place its cause and fixes are written.
struct Failure {
  std::string id;  // `F2`, or a rule-like id
  std::string title;
  std::string cause;
  std::string symptom;   // the error text a user sees, quoted after doctor's finding; may be empty
  EnvCondition applies;  // where it can happen at all; empty: anywhere
  // And, when not empty, at least one of these holds (F3: with mmcv-full 1.x or mmcv 1.x).
  std::vector<EnvCondition> applies_any;
  std::vector<LogSignature> patterns;
  std::vector<FailureFix> fixes;  // first whose `when` holds wins
  std::optional<FailureCheck> check;
  std::vector<std::string> prevented_by;  // rule ids
  std::vector<std::string> detected_by;   // doctor check ids
  std::vector<std::string> sources;
  Origin origin;
  // Whether it can happen in `context`: `applies` holds, and one of `applies_any` when given.
  bool can_happen(const FixContext& context) const;
  // The fix that fits `context`: the first whose `when` holds; null when none does.
  const FailureFix* fix_for(const FixContext& context) const;
  // That fix's text with the context's facts filled in; empty when none fits.
  std::string fitting_fix_text(const FixContext& context) const;
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

// A GPU class a profile cannot serve, and why: `no_port = [{ gpus, reason, sources }]`.
struct NoPort {
  std::vector<std::string> gpus;  // `sm_100`, ...
  std::string reason;
  std::vector<std::string> sources;
  Origin origin;
};

struct Profile {
  std::string name;
  std::string summary;
  std::string extends;               // direct parent, empty when none
  std::vector<std::string> lineage;  // self, parent, grandparent, ...
  std::string python;                // `3.8`
  std::string cuda;                  // toolkit version, empty for CPU-only profiles
  std::string base_image;
  std::vector<core::Requirement> requirements;  // merged along `extends`, child wins per name
  // `prefer`: the official environment, tried first within `requires`; the target may force
  // another point (a CUDA 10.2 driver gets torch 1.10.1+cu102). Merged as `requires` is.
  std::vector<core::Requirement> preferred;
  std::vector<std::string> indexes;
  std::vector<std::string> find_links;
  std::map<std::string, std::string, std::less<>> env;
  std::vector<BuildStep> builds;
  std::optional<double> train_gpu_memory_gib;
  MemoryBasis memory_basis = MemoryBasis::estimate;
  std::optional<std::int64_t> dataloader_workers_per_gpu;
  bool offline = false;  // every reachable record has complete dependencies
  // A port runs the stack of `port_of` on GPUs its official environment cannot serve; what it
  // changes and what a user must know are data, shown when a lock is pointed to it. Not
  // inherited. `lifts`: rule ids about the official stack that the port's changes answer.
  std::string port_of;
  std::vector<std::string> changes;
  std::vector<std::string> caveats;
  std::vector<std::string> lifts;
  std::vector<NoPort> no_ports;
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

// What `bevenv doctor --record` measured about a machine, so that a later `bevenv lock` on it
// can take its target from the record (matched by hostname, confirmed by the loaded driver).
struct ObservedHost {
  std::string host;               // host fingerprint, as `[[observed]]`
  std::string hostname;           // what `gethostname` said
  std::string date;               // ISO date
  std::string driver;             // the kernel driver's version, `580.159.04`
  core::Version cuda_driver;      // the CUDA version it supports
  std::vector<std::string> gpus;  // `sm_90`, one per device
  std::map<std::string, std::string, std::less<>> kernels;  // arch -> `cubin`, `ptx`, `fail`
  std::string nccl_version;                                 // empty: not probed
  std::string nccl_outcome;                                 // `ok`, `fail`, or empty
  std::optional<std::int64_t> shm_bytes;                    // /dev/shm's size
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
  std::vector<ObservedHost> observed_hosts;
  std::vector<Failure> failures;  // sorted by id

  const Package* find_package(std::string_view name) const;  // any spelling
  const PackageVersion* find_version(std::string_view name, const core::Version& v) const;
  const Rule* find_rule(std::string_view id) const;
  const Failure* find_failure(std::string_view id) const;
  const Toolkit* find_toolkit(const core::Version& v) const;
  const Profile* find_profile(std::string_view name) const;
  // Rules whose `when` or `then` names this package version.
  std::vector<const Rule*> rules_touching(std::string_view name, const core::Version& v) const;
  std::size_t version_count() const;
};

}  // namespace bevenv::matrix
