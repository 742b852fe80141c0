#pragma once
// Internal to `bevenv doctor`: reading facts out of a bevenv-probe report, shared by the checks,
// the output and the observed-facts writer.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/doctor.hpp"
#include "bevenv/core/version.hpp"

namespace bevenv::app::doctor_detail {

using json = nlohmann::json;

// The section's object, or an empty object when the probe did not run or failed.
const json& section_if_ok(const json& report, const char* name);
// Normalized name -> installed version text, from the Python probe's distributions.
std::map<std::string, std::string> installed_versions(const json& report);
// `3.11.2` of the inspected interpreter; empty when the Python probe did not run.
std::string interpreter_version(const json& report);
// `3.11` from `3.11.2`.
std::string minor_of(const std::string& version);
// The GPUs' `sm_XY`, in device order without repeats: from the driver, else from torch.
std::vector<std::string> gpu_sms(const json& report);
// The driver's version (`580.159.04`) from NVML; empty when unknown.
std::string driver_version(const json& report);
// The CUDA version the driver supports (`13.0`), possibly overridden; empty when unknown.
std::string driver_cuda(const json& report);
std::size_t gpu_count(const json& report);
std::optional<core::Version> parse_version(const std::string& text);
// A driver version as NVIDIA spells it, with two-digit minor parts (`465.19.01`): PEP 440 text
// would drop the zero and name a driver that does not exist.
std::string driver_text(const core::Version& version);

// The packages a check's verdict is about (`F3` -> yapf); empty for host-only checks.
std::vector<std::string> packages_of_check(const std::string& check);
// Which target facts a check depends on: python only, or also the GPU and driver.
bool check_depends_on_gpu(const std::string& check);

// Installed `1.10.1+cu113` matches a lock entry `1.10.1` with variant `cu113`, and a lock entry
// whose local part is a matrix label the index does not publish (`1.4.0` for mmcv-full).
// Shared with `bevenv sync`, so that sync and doctor agree on what drift is.
bool same_version(const std::string& installed, const lockfiles::Package& locked);

// Lockfile and matrix checks, appended to `out` (doctor_lock_checks.cpp).
void lock_checks(const json& report, const DoctorContext& ctx, std::vector<probes::Finding>& out);
void known_bad_rules(const json& report, const DoctorContext& ctx,
                     std::vector<probes::Finding>& out);

// What the fixes of the failure catalogue are chosen against: the inspected interpreter and its
// installed distributions (empty and unknown when the Python probe did not run).
matrix::FixContext fix_context(const json& report);
// Words the Python probe's check observations from the matrix's failure catalogue (title, fix,
// severity, field failure) and drops those whose failure cannot happen in this environment.
// Without a matrix the observations stay as they are.
void word_python_checks(const json& report, const matrix::Matrix* matrix,
                        std::vector<probes::Finding>& findings);

// The fixes of failing findings that name a catalogued failure, or whose evidence the
// catalogue recognises, fitted to the check, the host and the facts the finding observed
// (doctor_wording.cpp). Without a matrix the findings stay as they are.
void word_failures(const json& report, const matrix::Matrix* matrix,
                   std::vector<probes::Finding>& findings);

using probes::failure_finding;
using probes::make_finding;

// Human lines and JSON for a list of findings (doctor_output.cpp).
void render_findings(const std::vector<probes::Finding>& findings, CommandOutput& out);
json findings_json(const std::vector<probes::Finding>& findings);

}  // namespace bevenv::app::doctor_detail
