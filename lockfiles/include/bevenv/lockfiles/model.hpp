#pragma once
// The lockfile model: everything `bevenv lock` decided, and why, for one target.
// The canonical TOML form is in writer.hpp, the reader in reader.hpp, the format in
// docs/lockfile-format.md.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bevenv::lockfiles {

// The schema this bevenv writes and the newest it reads.
inline constexpr int kSchemaVersion = 1;

struct Target {
  std::string python;             // full version, e.g. `3.8.18`
  std::string platform;           // wheel platform tag, e.g. `linux_x86_64`
  std::string glibc;              // `2.31`; empty when unknown
  std::string cuda_driver;        // the driver's CUDA version, `12.2`; empty for CPU-only locks
  std::vector<std::string> gpus;  // `sm_86`, ...; canonical order is by architecture number
  bool operator==(const Target&) const = default;
};

// What `bevenv lock` was asked, beyond the profile and the target values: enough for `lock
// --check`, build-image and sync to make the same request again without its flags. Target values
// that came from `bevenv.toml` are read there again, so that an edit of it makes the lock stale.
struct Inputs {
  std::vector<std::string> requirements;  // `--require`, as given
  std::string requirements_file;          // `-r`, as given; empty when none
  std::string project_file;               // `--project`; empty: ./bevenv.toml when present
  std::string index_url;                  // `--index-url`
  std::vector<std::string> extra_index_urls;
  std::vector<std::string> find_links;
  bool no_index = false;
  std::string profile_from;  // `--profile` or `bevenv.toml`; empty without a profile
  // Where each target value came from: `--cuda-driver`, `BEVENV_GPUS`, `bevenv.toml`,
  // `detected`, a host record; empty for a default. The lock's reasons quote these words.
  std::string python_from, cuda_driver_from, gpus_from;
  std::string platform_from, glibc_from;  // `--platform`, `--glibc`; empty otherwise
  bool empty() const { return *this == Inputs{}; }
  bool operator==(const Inputs&) const = default;
};

struct BaseImage {
  std::string tag;                    // `nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04`
  std::optional<std::string> digest;  // `sha256:<hex>` when pinned
  bool operator==(const BaseImage&) const = default;
};

struct Environment {
  std::string cuda;                  // toolkit `X.Y`; empty for CPU-only locks
  BaseImage base_image;              // tag empty when no image was chosen
  std::string torch_cuda_arch_list;  // `8.6` or `7.0;7.5;8.6+PTX`; empty when none
  std::map<std::string, std::string> variables;
  bool operator==(const Environment&) const = default;
};

enum class SourceKind { index, find_links, path, pypi };

struct Source {
  SourceKind kind = SourceKind::pypi;
  std::string url;  // index URL, find-links page, local directory, or PyPI's simple URL
  bool operator==(const Source&) const = default;
};

struct Artifact {
  std::string url;
  std::string filename;
  std::optional<std::string> sha256;  // 64 lower-case hex digits, no prefix
  std::optional<std::uint64_t> size;  // bytes
  bool operator==(const Artifact&) const = default;
};

// `target`: a choice the target's driver or GPUs made (which CUDA build of torch).
enum class ReasonKind { requested, required_by, rule, preferred, observed, target };

// One step of the answer to "why this version": kept in the order the resolver recorded it.
struct Reason {
  ReasonKind kind = ReasonKind::requested;
  std::string text;                    // a phrase, e.g. `held below 59.6`
  std::optional<std::string> package;  // required-by: the package whose dependency this is
  std::optional<std::string> rule_id;  // rule: a `[[rule]]` id
  std::optional<std::string> source;   // where the fact comes from (issue, file, probe)
  bool operator==(const Reason&) const = default;
};

struct Package {
  std::string name;     // as the index spells it; ordered and compared by normalized name
  std::string version;  // PEP 440 canonical text
  std::string variant;  // `cu113`, `cpu`; empty when the package has no build variants
  Source source;
  std::vector<Artifact> artifacts;        // canonical order: by filename
  std::vector<std::string> dependencies;  // package names; canonical order: normalized name
  std::vector<Reason> why;
  std::optional<std::string> markers;  // PEP 508 marker under which it is installed
  bool operator==(const Package&) const = default;
};

// A build that runs after the packages it needs are installed: compiled ops of the project, a
// dependency compiled from source, or a package whose only artifact is an sdist.
struct BuildStep {
  std::string name;
  std::vector<std::string> after;  // package names; canonical order: normalized name
  // The package this build installs; empty for builds of the project itself. A package named
  // here is installed by this build alone, never also by pip's locked install.
  std::string package;
  // The archive the build installs, as data (URL, file name, sha256): the image fetches and
  // hash-checks it without the URL ever being part of a shell line. Such a step has no
  // commands; pip builds the archive with `--no-build-isolation` after `after`.
  std::optional<Artifact> source;
  // Or a source tree pinned by commit: `git+https://HOST/REPO.git@<40 hex>` (no commands either).
  std::optional<std::string> vcs;
  std::optional<std::string> working_dir;
  std::map<std::string, std::string> env;
  std::vector<std::string> commands;  // run in order (commands from the curated matrix only)
  std::string cuda_arch_list;         // TORCH_CUDA_ARCH_LIST for this build; may be empty
  bool operator==(const BuildStep&) const = default;
};

// An sdist build with no variables of its own: pip builds it from a hash-checked requirements
// line as bevenv's step does, so exports leave its package to pip. One that sets variables
// (mmcv-full's MMCV_WITH_OPS) needs its step: `bevenv build-image` or `bevenv sync`.
bool pip_builds_alone(const BuildStep& step);

// A matrix rule that changed the result, with the failure it prevents.
struct AppliedRule {
  std::string id;
  std::string failure;  // `F2`; empty when the rule is not tied to a catalogued failure
  std::string effect;   // `setuptools<59.6`
  std::optional<std::string> symptom;  // the error users see without the rule
  std::string source;                  // `pytorch/pytorch#69894`
  bool operator==(const AppliedRule&) const = default;
};

struct Lockfile {
  int schema_version = kSchemaVersion;
  std::string generator;       // `bevenv 0.1.0`
  std::string matrix_version;  // version of the compatibility matrix used
  std::string input_hash;      // `sha256:<hex>` of the inputs; `lock --check` compares it
  std::string profile;         // empty when no profile was used
  Target target;
  Inputs inputs;
  Environment environment;
  std::vector<Package> packages;  // canonical order: normalized name
  std::vector<BuildStep> builds;  // canonical order: as given (later steps may need earlier)
  std::vector<AppliedRule> rules_applied;  // canonical order: id
  bool operator==(const Lockfile&) const = default;

  // Lookup by any spelling of the name (`Mmcv_Full` finds `mmcv-full`); null when absent.
  const Package* find_package(std::string_view name) const;
  const AppliedRule* find_rule(std::string_view id) const;
};

// Puts every list in its canonical order (see the field comments), so that models holding the
// same facts compare equal and write byte-identical files.
void canonicalize(Lockfile& lock);
Lockfile canonical(Lockfile lock);

std::string_view to_string(SourceKind kind);  // `index`, `find-links`, `path`, `pypi`
std::optional<SourceKind> source_kind_from_string(std::string_view text);
std::string_view to_string(ReasonKind kind);  // `requested`, `required-by`, `rule`, ...
std::optional<ReasonKind> reason_kind_from_string(std::string_view text);

// A fact the model breaks (bad version text, dangling dependency, duplicate package...).
// `field` is a path such as `package[3].version`, indexed in the model's current order.
struct Problem {
  std::string field;
  std::string message;  // e.g. "expected a canonical PEP 440 version, found `1.10.01`"
  bool operator==(const Problem&) const = default;
};
std::vector<Problem> validate(const Lockfile& lock);

}  // namespace bevenv::lockfiles
