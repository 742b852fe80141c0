// Rules over the host section: /dev/shm (F12) and the memlock limit.
#include <cmath>

#include "rules.hpp"

namespace bevenv::probes::rules {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// Rough shared memory a DataLoader worker holds in flight for BEV-sized batches.
constexpr double kShmPerWorker = 0.5 * kGiB;
// Below this, NCCL's shared-memory transport and any worker pool fail (Docker's default: 64 MiB).
constexpr double kShmFloor = 1.0 * kGiB;

void shm(const json& report, const Expectations& expectations, std::vector<Finding>& out) {
  double total = -1;
  if (status_of(report, "host") == "ok") {
    const json& host = report["host"];
    const json section = host.value("shm", json::object());
    if (section.value("status", "") == "ok") total = section.value("total_bytes", 0.0);
  }
  if (total < 0 && status_of(report, "python") == "ok") {
    total = report["python"].value("shm", json::object()).value("total_bytes", -1.0);
  }
  if (total < 0) return;
  const int workers = expectations.dataloader_workers.value_or(0);
  const int processes = expectations.processes_per_node.value_or(1);
  const double need = std::max(kShmFloor, workers * processes * kShmPerWorker);
  // Twice the need, 8 GiB at least: batches in flight vary, and NCCL takes its share too.
  const std::string size_gib =
      std::to_string(std::max(8, static_cast<int>(std::ceil(need * 2 / kGiB))));
  std::string who = workers > 0 ? std::to_string(workers * processes) + " DataLoader workers"
                                : "NCCL and DataLoader workers";
  if (total >= need) {
    out.push_back(make_finding(
        "shm", Severity::ok,
        "/dev/shm is " + gib_text(total) + " (" + who + " need ~" + gib_text(need) + ")"));
  } else {
    out.push_back(
        failure_finding("shm", Severity::problem,
                        "/dev/shm is " + gib_text(total) + "; " + who + " need ~" + gib_text(need),
                        "F12", {{"size_gib", size_gib}}));
  }
}

void memlock(const json& report, const Expectations& expectations, std::vector<Finding>& out) {
  if (!expectations.multi_node || status_of(report, "host") != "ok") return;
  const json limit = report["host"].value("memlock", json::object());
  const json soft = limit.value("soft", json(nullptr));
  if (soft == "unlimited") {
    out.push_back(
        make_finding("memlock", Severity::ok, "memlock is unlimited (RDMA can pin memory)"));
    return;
  }
  const double bytes = soft.is_number() ? soft.get<double>() : 0;
  out.push_back(failure_finding(
      "memlock", Severity::warning,
      "memlock limit is " + gib_text(bytes) + ": NCCL over InfiniBand/RoCE needs to pin memory",
      "memlock-limit"));
}

}  // namespace

void host_findings(const json& report, const Expectations& expectations,
                   std::vector<Finding>& out) {
  shm(report, expectations, out);
  memlock(report, expectations, out);
}

}  // namespace bevenv::probes::rules
