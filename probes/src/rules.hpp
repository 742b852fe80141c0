#pragma once
// Internal: the rule groups evaluate() runs, and small helpers they share.
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/probes/findings.hpp"

namespace bevenv::probes::rules {

using json = nlohmann::json;

void gpu_findings(const json& report, const Expectations& expectations, std::vector<Finding>& out);
void kernel_nccl_findings(const json& report, std::vector<Finding>& out);
void host_findings(const json& report, const Expectations& expectations, std::vector<Finding>& out);
void python_findings(const json& report, std::vector<Finding>& out);
// Whether the compiled ops run on GPU `sm`: those the Python probe found installed (their
// fatbins read by bevenv-probe), else the architectures the lock builds them for.
void ops_arch_findings(const json& report, const Expectations& expectations, const std::string& sm,
                       std::vector<Finding>& out);

// The section's "status", or "" when the section is absent.
std::string status_of(const json& report, const char* section);
// "a.b" -> {a, b}; missing parts are 0. Leading digits only, so "1.10.1+cu113" -> {1, 10}.
std::pair<int, int> major_minor(const std::string& version);
// The number the leading digits spell, at most 1000000 (hostile reports hold any digits).
int leading_number(std::string_view digits);
std::string gib_text(double bytes);

}  // namespace bevenv::probes::rules
