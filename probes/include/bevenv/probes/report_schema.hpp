#pragma once
// The bevenv-probe report's schema (version kReportSchema): the JSON type of every field the
// probe writes, checked once when a report is read, so that the rules can trust the types.
// Fields the schema does not know are allowed (a newer probe may add some).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace bevenv::probes {

inline constexpr int kReportSchema = 1;

struct ReportProblem {
  std::string field;    // JSON path: `driver.p2p[0][0]`; empty for the report itself
  std::string message;  // "expected a boolean, found null"
};

// The first field of `report` whose type the schema does not allow, or a missing or unknown
// `schema` version; nullopt when the report may be judged.
std::optional<ReportProblem> check_report(const nlohmann::json& report);

// Whether the schema lets `field` (a path as ReportProblem names it) be null: optional facts
// such as `python.torch.cuda` (a CPU-only torch) or the diagonal of `driver.p2p`.
bool report_field_nullable(std::string_view field);

// Whether the schema allows `value`'s JSON type at `field` (true for a field it does not know):
// a byte count may also be `unlimited`, so a real report's type is not the only right one.
bool report_field_accepts(std::string_view field, const nlohmann::json& value);

}  // namespace bevenv::probes
