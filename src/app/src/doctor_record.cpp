// `bevenv doctor --record`: the verdicts of one run as `[[observed]]` matrix records, so that
// later locks avoid what failed here and prefer what worked.
#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <set>

#include "bevenv/core/sha256.hpp"
#include "bevenv/core/toml_nesting.hpp"
#include "bevenv/util/env.hpp"
#include "bevenv/util/toml_string.hpp"
#include "doctor_internal.hpp"
#include "doctor_record_host.hpp"

namespace bevenv::app {
namespace {

using doctor_detail::json;
using util::toml_basic_string;

struct Record {
  std::string package;
  std::string version;
  std::string check;
  bool ok = true;
  std::string detail;
  std::map<std::string, std::string> target;
  std::string date;
  std::string host;
  bool previous = false;  // from an earlier run's file
};

auto key_of(const Record& r) { return std::tie(r.package, r.version, r.check, r.target); }

// Records of an earlier run on this host, so that a fixed environment does not erase what
// failed before. Records that do not parse are dropped: the file is ours to rewrite.
std::vector<Record> previous_records(const std::string& text) {
  std::vector<Record> out;
  if (text.empty() || core::check_toml_nesting(text)) return out;
  toml::table document;
  try {
    document = toml::parse(text);
  } catch (const toml::parse_error&) {
    return out;
  }
  const toml::array* entries = document["observed"].as_array();
  if (entries == nullptr) return out;
  for (const auto& node : *entries) {
    const toml::table* entry = node.as_table();
    if (entry == nullptr) continue;
    Record record;
    record.package = (*entry)["package"].value_or(std::string());
    record.version = (*entry)["version"].value_or(std::string());
    record.check = (*entry)["check"].value_or(std::string());
    record.ok = (*entry)["outcome"].value_or(std::string()) == "ok";
    record.detail = (*entry)["detail"].value_or(std::string());
    record.date = (*entry)["date"].value_or(std::string());
    record.host = (*entry)["host"].value_or(std::string());
    record.previous = true;
    if (const toml::table* target = (*entry)["target"].as_table()) {
      for (const auto& [key, value] : *target) {
        if (auto text_value = value.value<std::string>()) {
          record.target[std::string(key.str())] = *text_value;
        }
      }
    }
    if (record.package.empty() || record.version.empty() || record.check.empty() ||
        record.date.empty() || record.host.empty()) {
      continue;
    }
    out.push_back(std::move(record));
  }
  return out;
}

// The GPU a finding speaks of (`sm_90` in its title), else the host's first one.
std::string gpu_of(const probes::Finding& finding, const std::vector<std::string>& sms) {
  std::smatch match;
  static const std::regex sm("sm_[0-9]+[a-z]?");
  if (std::regex_search(finding.title, match, sm)) return match.str();
  return sms.empty() ? "" : sms.front();
}

std::string record_detail(const probes::Finding& finding,
                          const std::map<std::string, std::string>& installed) {
  std::string detail = finding.detail.empty() ? finding.title : finding.detail;
  // F2 depends on torch: say which one the failure was seen with.
  if (finding.check == "F2") {
    const auto torch = installed.find("torch");
    detail +=
        torch == installed.end() ? " (no torch installed)" : " (with torch " + torch->second + ")";
  }
  return detail;
}

std::vector<Record> records_of(const json& report, const std::vector<probes::Finding>& findings,
                               const matrix::Matrix& matrix, std::size_t& not_in_matrix) {
  const auto installed = doctor_detail::installed_versions(report);
  const auto sms = doctor_detail::gpu_sms(report);
  const std::string python = doctor_detail::minor_of(doctor_detail::interpreter_version(report));
  const std::string cuda = doctor_detail::driver_cuda(report);
  std::vector<Record> out;
  std::set<std::string> left_out;
  for (const auto& finding : findings) {
    // A warning is a fact that does not bite with this stack (F2 with torch >= 1.11): recording
    // it as a failure would forbid the version for every stack.
    if (finding.severity == probes::Severity::warning) continue;
    for (const auto& package : doctor_detail::packages_of_check(finding.check)) {
      const auto version = installed.find(package);
      if (version == installed.end()) continue;
      if (matrix.find_package(package) == nullptr) {
        left_out.insert(package);
        continue;
      }
      Record record{package,
                    version->second,
                    finding.check,
                    finding.severity == probes::Severity::ok,
                    record_detail(finding, installed),
                    {},
                    "",
                    "",
                    false};
      if (!python.empty()) record.target["python"] = python;
      if (doctor_detail::check_depends_on_gpu(finding.check)) {
        const std::string gpu = gpu_of(finding, sms);
        if (!gpu.empty()) record.target["gpu_arch"] = gpu;
        if (!cuda.empty()) record.target["cuda_driver"] = cuda;
      }
      out.push_back(std::move(record));
    }
  }
  not_in_matrix = left_out.size();
  return out;
}

}  // namespace

std::string host_fingerprint(const nlohmann::json& report) {
  std::string hostname;
  if (report.is_object() && report.contains("host") && report["host"].is_object()) {
    hostname = report["host"].value("hostname", "");
  }
  std::vector<std::string> uuids;
  for (const char* section : {"nvml", "driver"}) {
    for (const auto& device :
         doctor_detail::section_if_ok(report, section).value("devices", json::array())) {
      const std::string uuid = device.value("uuid", "");
      if (!uuid.empty() && std::find(uuids.begin(), uuids.end(), uuid) == uuids.end()) {
        uuids.push_back(uuid);
      }
    }
  }
  std::sort(uuids.begin(), uuids.end());
  std::string text = hostname + "\n";
  for (const auto& uuid : uuids) text += uuid + ",";
  text += "\n" + doctor_detail::driver_version(report);
  return core::sha256_hex(text).substr(0, 16);
}

std::filesystem::path default_observed_dir() {
  const auto data = util::env("XDG_DATA_HOME");
  if (data && data->front() == '/') return std::filesystem::path(*data) / "bevenv" / "observed";
  const auto home = util::env("HOME");
  if (!home) return {};
  return std::filesystem::path(*home) / ".local" / "share" / "bevenv" / "observed";
}

ObservedOverlay observed_overlay(const nlohmann::json& report,
                                 const std::vector<probes::Finding>& findings,
                                 const matrix::Matrix& matrix, const std::string& date,
                                 const std::string& previous) {
  ObservedOverlay overlay;
  const std::string host = host_fingerprint(report);
  std::vector<Record> records = records_of(report, findings, matrix, overlay.not_in_matrix);
  for (auto& record : records) {
    record.date = date;
    record.host = host;
  }
  // Today's records first, so that unique() keeps them over older ones with the same key.
  for (auto& old : previous_records(previous)) {
    if (matrix.find_package(old.package) != nullptr) records.push_back(std::move(old));
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const Record& a, const Record& b) { return key_of(a) < key_of(b); });
  records.erase(
      std::unique(records.begin(), records.end(),
                  [](const Record& a, const Record& b) { return key_of(a) == key_of(b); }),
      records.end());
  overlay.kept = static_cast<std::size_t>(
      std::count_if(records.begin(), records.end(), [](const Record& r) { return r.previous; }));
  std::string& text = overlay.text;
  text =
      "# Observed by `bevenv doctor --record` on host " + host +
      ".\n# Later locks avoid versions that failed here and prefer ones that passed, and a lock\n"
      "# on this host with no target named takes its driver and GPUs from `[[observed_host]]`;\n"
      "# bevenv reads this directory by itself. Delete a record to forget it.\n";
  for (const auto& record : records) {
    text += "\n[[observed]]\n";
    text += "host = " + toml_basic_string(record.host) + "\n";
    text += "date = " + toml_basic_string(record.date) + "\n";
    text += "package = " + toml_basic_string(record.package) + "\n";
    text += "version = " + toml_basic_string(record.version) + "\n";
    if (!record.target.empty()) {
      std::string target;
      for (const auto& [key, value] : record.target) {
        target += (target.empty() ? "" : ", ") + key + " = " + toml_basic_string(value);
      }
      text += "target = { " + target + " }\n";
    }
    text += std::string("outcome = ") + (record.ok ? "\"ok\"" : "\"fail\"") + "\n";
    text += "check = " + toml_basic_string(record.check) + "\n";
    text += "detail = " + toml_basic_string(record.detail) + "\n";
  }
  overlay.records = records.size();
  if (const auto facts = host_facts_of(report)) {
    text += host_record_text(*facts, host, date);
    overlay.host_recorded = true;
  } else {
    text += previous_host_record(previous);
  }
  return overlay;
}

}  // namespace bevenv::app
