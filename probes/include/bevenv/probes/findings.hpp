#pragma once
// The findings catalogue: turns a bevenv-probe report (plus what the lockfile and profile
// expect) into doctor's verdicts. A pure function: no I/O, so every rule is unit-testable
// on synthetic reports. It judges and says what it observed; what a failure means and how to
// fix it is the matrix's failure catalogue, which the caller applies through `failure` and
// `facts` (bevenv doctor: doctor_wording.cpp).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bevenv/core/gpu_arch.hpp"

namespace bevenv::probes {

enum class Severity { ok, warning, problem };

std::string_view to_string(Severity severity);

struct Finding {
  std::string check;  // stable id: "driver-cuda", "gpu-arch", "F3", ...
  Severity severity = Severity::ok;
  std::string title;          // one line: what is true on this host
  std::string fix;            // one line: what to do; empty when nothing needs doing
  std::string detail;         // the evidence behind it (exception text, error name), for -v
  std::string field_failure;  // the catalogued failure ("F10", "gpu-xid") it is, when known
  // What the failure's fix templates may name (`{sm}` -> "sm_90"), observed by this check.
  std::vector<std::pair<std::string, std::string>> facts;
  // The tail of a long list (drift of a venv far from its lock): text shows it only with -v, and
  // a finding before it counts the whole list; JSON has it always.
  bool verbose_only = false;
};

Finding make_finding(std::string check, Severity severity, std::string title, std::string fix = {},
                     std::string field_failure = {}, std::string detail = {});
// A finding that is the catalogued failure `failure`: its fix comes from the catalogue.
Finding failure_finding(std::string check, Severity severity, std::string title,
                        std::string failure,
                        std::vector<std::pair<std::string, std::string>> facts = {},
                        std::string detail = {});

// The minimum Linux driver of a CUDA release (`11.3` -> `465.19.01`), from the matrix's
// toolkit table (matrix/data/cuda.toml) the caller passes in.
struct DriverFloor {
  std::string cuda;
  std::string driver;
};

struct Expectations {
  std::optional<std::string> cuda_version;  // the locked CUDA build, "11.3"
  // Architectures the stack's own compiled ops carry, TORCH_CUDA_ARCH_LIST style ("8.6",
  // "8.0+PTX") or nvcc style ("sm_86", "compute_80").
  std::vector<std::string> target_archs;
  std::optional<double> gpu_memory_gib;   // what the profile says training needs per GPU
  std::optional<int> dataloader_workers;  // DataLoader workers per process
  std::optional<int> processes_per_node;  // DDP processes sharing /dev/shm (default 1)
  bool multi_node = false;                // memlock matters for RDMA across nodes
  // False for a lock made for no GPU (`--gpu none`): a missing driver is then no problem.
  bool gpu_needed = true;
  std::vector<DriverFloor> driver_floors;  // the matrix's toolkits; empty: floors unknown
  // The floor for `cuda` (major.minor compared), or nullopt when not in the table.
  std::optional<std::string> minimum_driver_for_cuda(const std::string& cuda) const;
};

// Every applicable check yields one finding (ok ones included, so doctor can print the
// passing lines too); checks whose probe did not run yield nothing.
std::vector<Finding> evaluate(const nlohmann::json& report, const Expectations& expectations = {});

nlohmann::json to_json(const Finding& finding);
// The finding's facts as a JSON object (`{"sm": "sm_90"}`), empty when it has none.
nlohmann::json facts_json(const Finding& finding);

// How a GPU of compute capability `sm` (e.g. "sm_90" or "9.0") is served by a list of
// compiled architectures: core::arch_support, the one coverage function; none when `sm` is
// not a GPU architecture.
using ArchSupport = core::ArchSupport;
ArchSupport arch_support(const std::string& sm, const std::vector<std::string>& compiled_archs);

}  // namespace bevenv::probes
