#pragma once
// The machine's facts `bevenv doctor --record` keeps as an `[[observed_host]]` record.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace bevenv::app {

struct HostFacts {
  std::string hostname;
  std::string driver;                          // `580.159.04`
  std::string cuda_driver;                     // `13.0`
  std::vector<std::string> gpus;               // `sm_90`, one per device
  std::map<std::string, std::string> kernels;  // arch -> `cubin`, `ptx`, `fail`
  std::string nccl_version, nccl_outcome;      // empty when NCCL did not run
  std::optional<std::int64_t> shm_bytes;
};

// Nothing when the report lacks the driver, its CUDA version, a GPU or the hostname.
std::optional<HostFacts> host_facts_of(const nlohmann::json& report);
// The record as TOML, beginning with a blank line.
std::string host_record_text(const HostFacts& facts, const std::string& fingerprint,
                             const std::string& date);
// The `[[observed_host]]` block of an earlier file (this run had no driver facts), or empty.
std::string previous_host_record(const std::string& previous);

}  // namespace bevenv::app
