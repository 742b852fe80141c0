#pragma once
// `bevenv doctor`: run bevenv-probe on this host, judge its report against the lockfile and the
// matrix, and say what is wrong with a fix for each; `--log` names known failures in a log;
// `--record` feeds the verdicts back into the matrix as observed facts.
#include <chrono>
#include <filesystem>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/matrix_source.hpp"
#include "bevenv/app/output.hpp"
#include "bevenv/lockfiles/model.hpp"
#include "bevenv/matrix/model.hpp"
#include "bevenv/probes/findings.hpp"

namespace bevenv::app {

struct DoctorOptions {
  MatrixOptions matrix;
  std::optional<std::filesystem::path> probe;     // --probe; else BEVENV_PROBE, beside bevenv, PATH
  std::optional<std::filesystem::path> report;    // --report: judge a saved probe report instead
  std::optional<std::string> python;              // --python; else $VIRTUAL_ENV, python3 on PATH
  std::optional<std::filesystem::path> lockfile;  // --lockfile; else ./bevenv.lock if present
  std::optional<std::string> profile;  // --profile: the stack's needs when no lockfile names one
  std::optional<std::string> check;    // --check NAME: one check (and only the probes it needs)
  std::vector<std::string> skip;       // --skip nccl,kernel: probes not to run
  std::optional<std::string> cuda_version_override;  // passed through to the probe
  std::chrono::seconds probe_timeout{30};            // per probe, as bevenv-probe --timeout
  bool record = false;                               // --record
  std::optional<std::filesystem::path> record_dir;   // --record DIR; else default_observed_dir()
  bool include_report = false;                       // put the raw probe report in the JSON
  // --import-torch: import torch in the inspected interpreter (seconds) to learn whether it
  // loads; otherwise its version, CUDA build and architectures are read from its files.
  bool import_torch = false;
  // The running bevenv, to find bevenv-probe beside it; default /proc/self/exe.
  std::optional<std::filesystem::path> self_executable;
};

CommandOutput doctor(const DoctorOptions& options);

struct DoctorLogOptions {
  MatrixOptions matrix;
  std::filesystem::path log;  // `-` reads standard input
};

// Names the known failures in a training log or traceback. Exit 1 when one is found; an empty
// log is core::Error (bad_input): the traceback most likely went to stderr.
CommandOutput doctor_log(const DoctorLogOptions& options);

// ---- Building blocks, public so that tests can drive them without a GPU. ----

// What the report is judged against; every pointer may be null.
struct DoctorContext {
  const lockfiles::Lockfile* lock = nullptr;
  const matrix::Matrix* matrix = nullptr;
  const matrix::Profile* profile = nullptr;
};

// Every verdict on a probe report: the probes catalogue's findings plus the lockfile checks
// (drift, Python version, driver floor for the locked CUDA, target GPUs) and the matrix's
// known-bad rules evaluated against the installed versions. Ok findings included.
std::vector<probes::Finding> judge_report(const nlohmann::json& report, const DoctorContext& ctx);

// The check names `--check` accepts (check ids and field-failure ids), sorted.
std::vector<std::string> doctor_check_names();
// The probes (`bevenv-probe --only`) one check needs; throws core::Error(bad_input) for an
// unknown name, listing the known ones.
std::vector<std::string> probes_for_check(const std::string& name);
// Whether a finding answers `--check name` (its id or its field-failure id).
bool finding_matches_check(const probes::Finding& finding, const std::string& name);

// Locates bevenv-probe: `explicit_path`, BEVENV_PROBE, beside `self`, the build tree
// (`<dir of self>/../../probes/bevenv-probe`), then PATH; an empty `self` means /proc/self/exe.
// Throws core::Error when none is found.
std::filesystem::path find_probe(const std::optional<std::filesystem::path>& explicit_path,
                                 const std::filesystem::path& self);

// sha256 of hostname, sorted GPU UUIDs and driver version; 16 hex digits.
std::string host_fingerprint(const nlohmann::json& report);
// $XDG_DATA_HOME/bevenv/observed, else ~/.local/share/bevenv/observed.
std::filesystem::path default_observed_dir();

struct ObservedOverlay {
  std::string text;               // TOML of `[[observed]]` records
  std::size_t records = 0;        // how many
  std::size_t not_in_matrix = 0;  // concerned packages left out: the matrix must know them
  std::size_t kept = 0;           // records of earlier runs (from `previous`) carried over
  bool host_recorded = false;     // this run's `[[observed_host]]` (driver, GPUs, kernels)
};
// The observed facts of one doctor run, in the matrix's `[[observed]]` format (one record per
// package a check concerns, outcome ok or fail). `date` is ISO, `2026-11-30`. `previous` is the
// text of this host's earlier file: its records stay unless today's run observed the same
// package, version, check and target again.
ObservedOverlay observed_overlay(const nlohmann::json& report,
                                 const std::vector<probes::Finding>& findings,
                                 const matrix::Matrix& matrix, const std::string& date,
                                 const std::string& previous = {});

struct LogMatch {
  std::string id;                       // `F1`, or a rule id when the failure has no catalogue id
  std::size_t line = 0;                 // 1-based, first occurrence
  std::vector<std::size_t> more_lines;  // later occurrences
  std::string text;                     // the matching line, trimmed
  std::string cause;
  std::string fix;
  std::vector<std::string> rules;  // matrix rules whose `symptom` matched
};
// Scans a log for the matrix's failure catalogue and its rules' `symptom` texts; each match's
// fix is the one that fits `context` (unknown facts rule nothing out). A null matrix knows no
// failure.
std::vector<LogMatch> scan_log(std::istream& in, const matrix::Matrix* matrix,
                               std::size_t* line_count = nullptr,
                               const matrix::FixContext& context = {});

}  // namespace bevenv::app
