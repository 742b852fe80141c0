#include "rank_aggregate.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "peer_json.hpp"

namespace bevenv::probe_tool {
namespace {

constexpr const char* kVersion = BEVENV_PROBE_VERSION;
// A rank whose bus bandwidth is below this share of the median is named as slow.
constexpr double kSlowShareOfMedian = 0.5;

std::string string_at(const json& object, const json::json_pointer& pointer) {
  if (!object.contains(pointer)) return "";
  const json& value = object.at(pointer);
  return value.is_string() ? value.get<std::string>() : "";
}

std::string host_of(const RankRecord& record) {
  std::string host = string_at(record.report, json::json_pointer("/host/hostname"));
  if (host.empty()) host = string_at(record.hello, json::json_pointer("/host"));
  if (host.empty()) host = record.address;
  return host.empty() ? "rank " + std::to_string(record.rank) : host;
}

// A bandwidth as whole GB/s for a message; a peer may report any number, and a cast of one
// past int's range is undefined.
std::string whole_gbps(double gbps) {
  return std::to_string(static_cast<long long>(std::clamp(gbps, -1e15, 1e15)));
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text;
  for (int rank : ranks) text += (text.empty() ? "" : ", ") + std::to_string(rank);
  return text;
}

// The GPU this rank's collective used, described from its driver probe.
json rank_device(const RankRecord& record) {
  const json collective = peer_field(record.report, "collective", json::object());
  if (!collective.contains("device") || !collective["device"].is_number_integer()) return nullptr;
  const int index = collective["device"].get<int>();
  json out{{"index", index}};
  const json devices =
      peer_field(peer_field(record.report, "driver", json::object()), "devices", json::array());
  if (index >= 0 && static_cast<std::size_t>(index) < devices.size()) {
    for (const char* key : {"name", "uuid", "pci_bus_id"}) {
      if (devices[static_cast<std::size_t>(index)].contains(key)) {
        out[key] = devices[static_cast<std::size_t>(index)][key];
      }
    }
  }
  return out;
}

// Per-rank facts compared across the job: name -> value. Absent sources give no fact, so a
// rank without a Python report does not make every package "differ".
std::map<std::string, std::string> facts_of(const RankRecord& record) {
  std::map<std::string, std::string> facts;
  const json& report = record.report;
  auto put = [&](const std::string& name, const std::string& value) {
    if (!value.empty()) facts[name] = value;
  };
  put("probe_version", peer_text(report, "probe_version"));
  put("driver_version", string_at(report, json::json_pointer("/nvml/driver_version")));
  put("cuda_version", string_at(report, json::json_pointer("/driver/cuda_version")));
  put("nccl_version", string_at(report, json::json_pointer("/collective/nccl_version")));
  put("gpu_name", rank_device(record).is_object() ? peer_text(rank_device(record), "name") : "");
  if (report.contains("lock")) {
    const std::string hash = peer_text(report["lock"], "hash");
    facts["lock_hash"] = hash.empty() ? "(none)" : hash;
  }
  if (report.contains("python") && peer_text(report["python"], "status") == "ok") {
    const json& python = report["python"];
    put("python_version", string_at(python, json::json_pointer("/interpreter/version")));
    facts["packages"] = "present";  // marks that this rank listed its packages
    for (const auto& dist : peer_field(python, "distributions", json::array())) {
      if (dist.contains("name") && dist["name"].is_string() && dist.contains("version")) {
        facts["package:" + dist["name"].get<std::string>()] =
            dist["version"].is_string() ? dist["version"].get<std::string>()
                                        : dist["version"].dump();
      }
    }
  }
  if (report.contains("host") && report["host"].contains("env")) {
    for (const auto& [name, value] : report["host"]["env"].items()) {
      if (name.rfind("NCCL_", 0) == 0 && value.is_string()) facts["env:" + name] = value;
    }
    facts["env"] = "present";
  }
  return facts;
}

// Facts where a difference breaks reproducibility or the collective; the rest are warnings.
bool difference_is_problem(const std::string& fact) {
  return fact == "lock_hash" || fact == "nccl_version" || fact == "python_version" ||
         fact.rfind("package:", 0) == 0;
}

// The value a rank stands for when it lacks a fact that others have.
std::optional<std::string> absent_value(const std::string& fact,
                                        const std::map<std::string, std::string>& facts) {
  if (fact.rfind("package:", 0) == 0) {
    return facts.count("packages") ? std::optional<std::string>("(not installed)") : std::nullopt;
  }
  if (fact.rfind("env:", 0) == 0) {
    return facts.count("env") ? std::optional<std::string>("(unset)") : std::nullopt;
  }
  return std::nullopt;
}

json differences(const std::vector<RankRecord>& reported, json& problems, json& warnings) {
  std::vector<std::map<std::string, std::string>> all_facts;
  std::set<std::string> names;
  for (const auto& record : reported) {
    all_facts.push_back(facts_of(record));
    for (const auto& [name, value] : all_facts.back()) names.insert(name);
  }
  names.erase("packages");
  names.erase("env");
  json out = json::array();
  for (const auto& name : names) {
    std::map<std::string, std::pair<std::set<std::string>, std::vector<int>>> by_value;
    for (std::size_t i = 0; i < reported.size(); ++i) {
      const auto found = all_facts[i].find(name);
      const auto value = found != all_facts[i].end() ? std::optional<std::string>(found->second)
                                                     : absent_value(name, all_facts[i]);
      if (!value) continue;
      by_value[*value].first.insert(host_of(reported[i]));
      by_value[*value].second.push_back(reported[i].rank);
    }
    if (by_value.size() < 2) continue;
    json values = json::array();
    std::string summary;
    for (const auto& [value, where] : by_value) {
      const std::vector<std::string> hosts(where.first.begin(), where.first.end());
      values.push_back({{"value", value}, {"hosts", hosts}, {"ranks", where.second}});
      std::string host_text;
      for (const auto& host : hosts) host_text += (host_text.empty() ? "" : ", ") + host;
      summary += (summary.empty() ? "" : "; ") + ("`" + value + "` on " + host_text);
    }
    const bool problem = difference_is_problem(name);
    out.push_back(
        {{"fact", name}, {"severity", problem ? "problem" : "warning"}, {"values", values}});
    (problem ? problems : warnings).push_back("`" + name + "` differs: " + summary);
  }
  return out;
}

double largest_busbw(const json& collective) {
  const json results = peer_field(collective, "results", json::array());
  if (results.empty()) return -1;
  return peer_number(results.back(), "busbw_gbps", -1);
}

json collective_summary(const AggregateContext& context, const std::vector<RankRecord>& ranks,
                        json& problems) {
  json out{{"world_size", context.world_size}};
  if (context.collective_skip_reason) {
    out["status"] = "skipped";
    out["reason"] = *context.collective_skip_reason;
    if (context.collective_skip_is_problem) {
      problems.push_back("all-reduce not run: " + *context.collective_skip_reason);
    }
    return out;
  }
  json failed = json::array();
  std::vector<std::pair<int, double>> bandwidths;
  json results;
  bool correct = true;
  for (const auto& record : ranks) {
    const json collective = peer_field(record.report, "collective", json::object());
    const std::string status =
        record.state == "reported" ? peer_text(collective, "status", "missing") : record.state;
    if (status != "ok") {
      const std::string error = record.state == "reported"
                                    ? error_text(peer_field(collective, "error", json()))
                                    : record.error;
      failed.push_back(
          {{"rank", record.rank}, {"host", host_of(record)}, {"status", status}, {"error", error}});
      // A rank that sent no report is already a problem of its own.
      if (record.state == "reported")
        problems.push_back("all-reduce on rank " + std::to_string(record.rank) + " (" +
                           host_of(record) + "): " + status + (error.empty() ? "" : ": " + error));
      correct = correct && status != "error";
      continue;
    }
    bandwidths.emplace_back(record.rank, largest_busbw(collective));
    // Every rank times the same collective; the slowest view is the honest one.
    const json rank_results = peer_field(collective, "results", json::array());
    if (results.is_null()) {
      results = rank_results;
    } else {
      for (std::size_t i = 0; i < std::min(results.size(), rank_results.size()); ++i) {
        if (peer_number(rank_results[i], "busbw_gbps", 0.0) <
            peer_number(results[i], "busbw_gbps", 0.0)) {
          results[i] = rank_results[i];
        }
      }
    }
  }
  out["status"] = failed.empty() ? "ok" : "failed";
  out["correct"] = failed.empty() && correct;
  out["results"] = results.is_null() ? json::array() : results;
  out["failed_ranks"] = failed;
  json slow = json::array();
  if (!bandwidths.empty()) {
    std::vector<double> sorted;
    for (const auto& entry : bandwidths) sorted.push_back(entry.second);
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    for (const auto& entry : bandwidths) {
      const int rank = entry.first;  // a named copy: clang 14 cannot capture a binding
      const double busbw = entry.second;
      const bool below_floor = context.min_busbw_gbps && busbw < *context.min_busbw_gbps;
      const bool below_peers = busbw < kSlowShareOfMedian * median;
      if (!below_floor && !below_peers) continue;
      slow.push_back({{"rank", rank}, {"busbw_gbps", busbw}, {"median_busbw_gbps", median}});
      const auto& record = *std::find_if(ranks.begin(), ranks.end(),
                                         [&](const RankRecord& r) { return r.rank == rank; });
      problems.push_back("all-reduce on rank " + std::to_string(rank) + " (" + host_of(record) +
                         ") is slow: busbw " + whole_gbps(busbw) + " GB/s" +
                         (below_floor ? " below --min-busbw " + std::to_string(static_cast<int>(
                                                                    *context.min_busbw_gbps))
                                      : " against a median of " + whole_gbps(median)));
    }
  }
  out["slow_ranks"] = slow;
  return out;
}

json node_summary(const std::string& host, const std::vector<const RankRecord*>& records) {
  std::vector<int> rank_numbers;
  for (const auto* record : records) rank_numbers.push_back(record->rank);
  const RankRecord& first = *records.front();
  const json& report = first.report;
  json gpus = json::array();
  for (const auto& device :
       peer_field(peer_field(report, "driver", json::object()), "devices", json::array())) {
    gpus.push_back(peer_text(device, "name"));
  }
  json nccl_env = json::object();
  const json env = peer_field(peer_field(report, "host", json::object()), "env", json::object());
  for (const auto& [name, value] : env.items()) {
    if (name.rfind("NCCL_", 0) == 0) nccl_env[name] = value;
  }
  auto or_null = [](const std::string& text) { return text.empty() ? json(nullptr) : json(text); };
  return {
      {"host", host},
      {"ranks", rank_numbers},
      {"driver_version", or_null(string_at(report, json::json_pointer("/nvml/driver_version")))},
      {"cuda_version", or_null(string_at(report, json::json_pointer("/driver/cuda_version")))},
      {"nccl_version", or_null(string_at(report, json::json_pointer("/collective/nccl_version")))},
      {"gpus", gpus},
      {"lock_hash",
       report.contains("lock") ? peer_field(report["lock"], "hash", json(nullptr)) : json(nullptr)},
      {"python_version",
       or_null(string_at(report, json::json_pointer("/python/interpreter/version")))},
      {"torch", or_null(string_at(report, json::json_pointer("/python/torch/version")))},
      {"nccl_env", nccl_env},
      {"report_rank", first.rank}};
}

}  // namespace

std::string error_text(const json& error) {
  if (error.is_string()) return error.get<std::string>();
  if (error.is_object() && error.contains("call")) {
    std::string text = peer_text(error, "call") + " failed";
    if (error.contains("name") && error["name"].is_string())
      text += ": " + error["name"].get<std::string>();
    return text;
  }
  return error.is_null() ? "" : error.dump();
}

json aggregate_cluster(const AggregateContext& context, const std::vector<RankRecord>& ranks) {
  json problems = context.extra_problems;
  json warnings = json::array();
  json rank_rows = json::array();
  std::vector<int> missing;
  std::vector<int> lost;
  std::vector<RankRecord> reported;
  std::map<std::string, std::vector<const RankRecord*>> by_host;
  for (const auto& record : ranks) {
    json row{{"rank", record.rank}, {"state", record.state}, {"host", host_of(record)}};
    if (!record.address.empty()) row["address"] = record.address;
    if (!record.error.empty()) row["error"] = record.error;
    if (record.state == "reported") {
      row["local_rank"] = peer_field(record.report, "local_rank", json(0));
      row["device"] = rank_device(record);
      const json collective = peer_field(record.report, "collective", json::object());
      row["collective_status"] = peer_text(collective, "status", "missing");
      if (largest_busbw(collective) >= 0) row["busbw_gbps"] = largest_busbw(collective);
      reported.push_back(record);
    } else if (record.state == "missing") {
      missing.push_back(record.rank);
    } else {
      lost.push_back(record.rank);
      problems.push_back("rank " + std::to_string(record.rank) + " (" + host_of(record) +
                         ") connected but sent no report: " + record.error);
    }
    rank_rows.push_back(row);
  }
  if (!missing.empty()) {
    const auto seconds = std::to_string(static_cast<int>(context.rank_timeout_s));
    problems.insert(problems.begin(), std::string(missing.size() == 1 ? "rank " : "ranks ") +
                                          rank_list(missing) + " never reached rank 0 at port " +
                                          std::to_string(context.rendezvous_port) + " within " +
                                          seconds + " s");
  }
  for (const auto& record : reported) by_host[host_of(record)].push_back(&record);
  json nodes = json::array();
  json node_reports = json::object();
  for (const auto& [host, records] : by_host) {
    nodes.push_back(node_summary(host, records));
    node_reports[host] = records.front()->report;
  }
  json out{{"schema", 1},
           {"tool", "bevenv-probe"},
           {"version", kVersion},
           {"mode", "cluster"},
           {"launcher", context.launcher},
           {"world_size", context.world_size},
           {"master", context.master},
           {"rendezvous_port", context.rendezvous_port},
           {"rank_timeout_s", context.rank_timeout_s},
           {"ranks_reported", reported.size()},
           {"ranks", rank_rows},
           {"missing_ranks", missing},
           {"lost_ranks", lost},
           {"nodes", nodes}};
  out["differences"] = differences(reported, problems, warnings);
  out["collective"] = collective_summary(context, ranks, problems);
  out["node_reports"] = node_reports;
  out["problems"] = problems;
  out["warnings"] = warnings;
  out["status"] = problems.empty() ? "ok" : "problem";
  return out;
}

}  // namespace bevenv::probe_tool
