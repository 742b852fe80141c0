// `bevenv doctor`: run the probes, judge the report against the lockfile and the matrix, and
// (with --record) keep the verdicts as observed facts.
#include "bevenv/app/doctor.hpp"

#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "bevenv/app/project_file.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "doctor_internal.hpp"
#include "doctor_probe.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;
using doctor_detail::json;

std::optional<fs::path> lockfile_path(const DoctorOptions& options) {
  if (options.lockfile) return options.lockfile;
  // Without `--lockfile`, the lock `bevenv lock` writes here, when there is one.
  const fs::path path = default_lockfile();
  std::error_code error;
  if (fs::is_regular_file(path, error)) return path;
  return std::nullopt;
}

const matrix::Profile* profile_for(const DoctorOptions& options,
                                   const std::optional<lockfiles::Lockfile>& lock,
                                   const matrix::Matrix& matrix) {
  std::string name = options.profile.value_or("");
  if (name.empty() && lock) name = lock->profile;
  if (name.empty()) return nullptr;
  const matrix::Profile* profile = matrix.find_profile(name);
  if (profile != nullptr) return profile;
  if (options.profile) return &profile_or_throw(matrix, name);
  return nullptr;  // a lock from another matrix: judge without the profile's needs
}

// Why `--check NAME` found nothing to judge. A check that needs the GPU has failed on a machine
// without one (exit 1); others may not apply here (memlock on one node), which is said.
void unjudged_check(const std::string& check, const json& report,
                    const std::optional<lockfiles::Lockfile>& lock, CommandOutput& out) {
  const std::vector<std::string> probes = probes_for_check(check);
  const bool needs_driver = std::find(probes.begin(), probes.end(), "driver") != probes.end();
  const json* driver = report.contains("driver") ? &report["driver"] : nullptr;
  const bool no_driver =
      driver != nullptr && driver->is_object() && driver->value("status", std::string()) != "ok";
  if (needs_driver && no_driver) {
    out.add("check `" + check + "`: no GPU here (no NVIDIA driver could be loaded)", Mark::problem);
    out.hint(
        "run it on the GPU machine, or read a report from there: "
        "`bevenv doctor --report FILE --check " +
        check + "`");
    out.exit_code = core::ExitCode::problem_found;
    return;
  }
  out.add("check `" + check + "` had nothing to judge here" +
              (lock ? "" : " (no lockfile: pass `--lockfile`)"),
          Mark::info);
}

std::string today_iso() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

std::string hostname_of(const json& report) {
  if (report.contains("host") && report["host"].is_object()) {
    const std::string name = report["host"].value("hostname", "");
    if (!name.empty()) return name;
  }
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') return name;
  return "this host";
}

void record(const DoctorOptions& options, const json& report,
            const std::vector<probes::Finding>& findings, const matrix::Matrix& matrix,
            CommandOutput& out) {
  const fs::path dir = options.record_dir ? *options.record_dir : default_observed_dir();
  if (dir.empty()) {
    throw core::Error(core::ExitCode::bad_input,
                      "no place to record: neither `XDG_DATA_HOME` "
                      "nor `HOME` is set",
                      "pass a directory: `bevenv doctor --record DIR`");
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    throw core::Error(core::ExitCode::failure,
                      "cannot create `" + dir.string() + "`: " + error.message(),
                      "pass another directory: `bevenv doctor --record DIR`");
  }
  const fs::path file = dir / (host_fingerprint(report) + ".toml");
  std::string previous;
  if (fs::is_regular_file(file, error)) previous = core::read_file(file);
  const ObservedOverlay overlay = observed_overlay(report, findings, matrix, today_iso(), previous);
  core::write_file_atomic(file, overlay.text);
  std::string text =
      "Recorded " + std::to_string(overlay.records) + " observed facts in `" + file.string() + "`";
  if (overlay.kept > 0) text += " (" + std::to_string(overlay.kept) + " from earlier runs)";
  if (overlay.host_recorded)
    text += " and this host's driver and GPUs, which `bevenv lock` here uses";
  out.add(text, Mark::info);
  if (overlay.not_in_matrix > 0) {
    out.add(std::to_string(overlay.not_in_matrix) +
                " concerned packages are not in the matrix and were left out",
            Mark::none, 2)
        .verbose_only = true;
  }
  out.json["recorded"] = {{"file", file.string()},
                          {"records", overlay.records},
                          {"kept", overlay.kept},
                          {"not_in_matrix", overlay.not_in_matrix},
                          {"host", overlay.host_recorded}};
}

// The probes bevenv-probe runs: those `--check` needs (empty: all), less those `--skip` names.
std::vector<std::string> probes_to_run(const DoctorOptions& options) {
  std::vector<std::string> only;
  if (options.check) only = probes_for_check(*options.check);
  if (options.skip.empty()) return only;
  // --skip leaves some out (NCCL takes seconds on big hosts).
  static const std::vector<std::string> kProbes = {"host",   "driver", "nvml",
                                                   "kernel", "nccl",   "python"};
  for (const auto& name : options.skip) {
    if (std::find(kProbes.begin(), kProbes.end(), name) == kProbes.end()) {
      throw core::Error(core::ExitCode::bad_input, "unknown probe `" + name + "` in `--skip`",
                        "skip some of `host`, `driver`, `nvml`, `kernel`, `nccl`, `python`");
    }
  }
  if (only.empty()) only = kProbes;
  std::erase_if(only, [&](const std::string& probe) {
    return std::find(options.skip.begin(), options.skip.end(), probe) != options.skip.end();
  });
  return only;
}

// Runs bevenv-probe here and returns its report; how it ran goes to `out`'s JSON.
json probe_this_machine(const DoctorOptions& options, const std::vector<std::string>& only,
                        CommandOutput& out) {
  ProbeRequest request;
  request.probe = find_probe(
      options.probe, options.self_executable ? *options.self_executable : self_executable());
  request.python = options.python ? checked_python(*options.python) : default_python();
  request.only = only;
  request.cuda_version_override = options.cuda_version_override;
  request.timeout = options.probe_timeout;
  // Only the `torch` check needs the import itself (does it load?); the rest reads files.
  request.import_torch =
      options.import_torch || options.check == std::optional<std::string>("torch");
  const ProbeRun run = run_probe(request);
  out.json["probe"] = {{"path", request.probe.string()},
                       {"python", request.python ? json(*request.python) : json(nullptr)},
                       {"only", only},
                       {"exit_code", run.exit_code},
                       {"duration_ms", run.duration_ms}};
  return run.report;
}

}  // namespace

CommandOutput doctor(const DoctorOptions& options) {
  // A saved report is checked first: a bad one says so without waiting for the matrix.
  const std::optional<json> saved =
      options.report ? std::optional<json>(read_report(*options.report)) : std::nullopt;
  const matrix::Matrix matrix = load_matrix_or_throw(options.matrix);
  std::optional<lockfiles::Lockfile> lock;
  const auto lock_path = lockfile_path(options);
  if (lock_path) lock = lockfiles::read_lockfile(*lock_path);
  const matrix::Profile* profile = profile_for(options, lock, matrix);
  const std::vector<std::string> only = probes_to_run(options);

  CommandOutput out;
  json report;
  if (options.report) {
    report = *saved;
    out.json["report_file"] = options.report->string();
  } else {
    report = probe_this_machine(options, only, out);
  }

  const DoctorContext ctx{lock ? &*lock : nullptr, &matrix, profile};
  std::vector<probes::Finding> findings = judge_report(report, ctx);
  if (options.check) {
    std::erase_if(findings, [&](const probes::Finding& finding) {
      return !finding_matches_check(finding, *options.check);
    });
  }

  const std::string host = hostname_of(report);
  std::string heading = "bevenv doctor — host " + host + ", ";
  heading += lock_path ? "lock " + lock_path->string() : "no lockfile";
  if (profile != nullptr) heading += " (" + profile->name + ")";
  if (options.check) heading += ", check `" + *options.check + "`";
  out.add(heading);
  // A check that was asked for and gave no verdict has not passed.
  if (findings.empty() && options.check) unjudged_check(*options.check, report, lock, out);
  doctor_detail::render_findings(findings, out);
  out.json["host"] = host;
  out.json["fingerprint"] = host_fingerprint(report);
  out.json["lockfile"] = lock_path ? json(lock_path->string()) : json(nullptr);
  out.json["profile"] = profile != nullptr ? json(profile->name) : json(nullptr);
  out.json["check"] = options.check ? json(*options.check) : json(nullptr);
  out.json["checks"] = doctor_detail::findings_json(findings);
  if (options.include_report) out.json["report"] = report;
  if (options.record) record(options, report, findings, matrix, out);
  return out;
}

}  // namespace bevenv::app
