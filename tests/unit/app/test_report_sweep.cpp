// Hostile probe reports: every field of every recorded report (tests/unit/probes/data),
// recursively and array elements included, replaced by each JSON type no recorded report has
// there, and judged by `bevenv doctor --report FILE` in-process (app::doctor(), the function
// the CLI calls). Each must be refused as bad input naming the file and the field: never a
// pass, a finding, an internal error or a crash. The one exception is null where the schema
// says a fact is optional: that report must then be judged (exit 0 or 1) without an error.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "bevenv/app/doctor.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/probes/report_schema.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// One JSON type per kind the sweep substitutes; numbers are one kind (JSON has one).
const std::vector<std::pair<std::string, json>>& samples() {
  static const std::vector<std::pair<std::string, json>> kinds = {
      {"null", json(nullptr)},     {"boolean", json(true)},        {"number", json(7)},
      {"string", json("hostile")}, {"array", json::array({1, 2})}, {"object", json::object()}};
  return kinds;
}

std::string kind_of(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "boolean";
  if (value.is_number()) return "number";
  if (value.is_string()) return "string";
  if (value.is_array()) return "array";
  return "object";
}

struct Field {
  json::json_pointer pointer;
  std::string path;     // as doctor names it: `driver.p2p[0][1]`
  std::string pattern;  // indices dropped: `driver.p2p[][]`
};

void collect(const json& value, const Field& here, std::vector<Field>& out) {
  out.push_back(here);
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      collect(value[i],
              {here.pointer / i, here.path + "[" + std::to_string(i) + "]", here.pattern + "[]"},
              out);
    }
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      const std::string dot = here.path.empty() ? "" : ".";
      collect(item, {here.pointer / key, here.path + dot + key, here.pattern + dot + key}, out);
    }
  }
}

std::vector<json> recorded_reports() {
  std::vector<json> reports;
  for (const auto& entry : fs::directory_iterator(BEVENV_PROBE_REPORTS)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    reports.push_back(json::parse(in));
  }
  REQUIRE(reports.size() >= 2);
  return reports;
}

struct Tally {
  std::size_t mutations = 0;
  std::size_t refused = 0;           // exit 2 naming the file and the field
  std::size_t unnamed = 0;           // exit 2, but the message misses the file or field
  std::size_t passed = 0;            // exit 0
  std::size_t findings = 0;          // exit 1
  std::size_t other_errors = 0;      // exit 3 from a core::Error
  std::size_t internal_errors = 0;   // any other exception: "internal error" in the CLI
  std::size_t optional_nulls = 0;    // null where the schema allows it, judged (exit 0 or 1)
  std::size_t optional_refused = 0;  // ... but refused all the same
};

// Null in an optional field is a valid report: it must be judged, not refused or crash.
void judge_optional_null(const fs::path& file, const std::string& field, Tally& tally) {
  DoctorOptions options;
  options.report = file;
  try {
    (void)doctor(options);
    ++tally.optional_nulls;
  } catch (const core::Error& error) {
    ++tally.optional_refused;
    UNSCOPED_INFO(field << ": optional null refused: " << error.what());
  } catch (const std::exception& error) {
    ++tally.internal_errors;
    UNSCOPED_INFO(field << ": internal error: " << error.what());
  }
}

void judge(const fs::path& file, const std::string& field, Tally& tally) {
  ++tally.mutations;
  DoctorOptions options;
  options.report = file;
  try {
    const CommandOutput out = doctor(options);
    ++(out.exit_code == core::ExitCode::ok ? tally.passed : tally.findings);
    UNSCOPED_INFO("accepted: " << field);
  } catch (const core::Error& error) {
    if (error.code() != core::ExitCode::bad_input) {
      ++tally.other_errors;
      UNSCOPED_INFO(field << ": exit " << static_cast<int>(error.code()) << ": " << error.what());
      return;
    }
    const std::string message = error.what();
    const std::string named = field.empty() ? "" : "field `" + field + "`";
    const bool names = message.find("`" + file.string() + "`") != std::string::npos &&
                       message.find(named) != std::string::npos && !error.hint().empty();
    ++(names ? tally.refused : tally.unnamed);
    if (!names) UNSCOPED_INFO(field << ": " << message);
  } catch (const std::exception& error) {
    ++tally.internal_errors;
    UNSCOPED_INFO(field << ": internal error: " << error.what());
  }
}

TEST_CASE("doctor --report: every wrongly typed field of a recorded report is bad input") {
  const std::vector<json> reports = recorded_reports();
  // The types real reports hold at each place: those are right, every other type is wrong.
  std::map<std::string, std::set<std::string>> seen;
  std::vector<std::vector<Field>> fields;
  for (const auto& report : reports) {
    fields.emplace_back();
    collect(report, {json::json_pointer(), "", ""}, fields.back());
    for (const auto& field : fields.back()) {
      seen[field.pattern].insert(kind_of(report[field.pointer]));
    }
  }
  std::string dir_pattern = "/tmp/bevenv-sweep-XXXXXX";
  REQUIRE(::mkdtemp(dir_pattern.data()) != nullptr);
  const fs::path file = fs::path(dir_pattern) / "report.json";
  Tally tally;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    for (const auto& field : fields[r]) {
      for (const auto& [kind, sample] : samples()) {
        if (seen[field.pattern].count(kind) != 0) continue;
        // Another type the schema allows here (`unlimited` for a byte count) is not wrong.
        if (kind != "null" && probes::report_field_accepts(field.path, sample)) continue;
        json mutated = reports[r];
        mutated[field.pointer] = sample;
        std::ofstream(file, std::ios::trunc) << mutated.dump();
        if (kind == "null" && probes::report_field_nullable(field.path)) {
          judge_optional_null(file, field.path, tally);
        } else {
          judge(file, field.path, tally);
        }
      }
    }
  }
  fs::remove_all(dir_pattern);
  std::printf(
      "report sweep: %zu reports, %zu wrongly typed: %zu refused naming the field (exit 2), "
      "%zu refused without naming it, %zu exit 0, %zu exit 1, %zu other errors, %zu internal "
      "errors; %zu nulls in optional fields judged, %zu refused\n",
      reports.size(), tally.mutations, tally.refused, tally.unnamed, tally.passed, tally.findings,
      tally.other_errors, tally.internal_errors, tally.optional_nulls, tally.optional_refused);
  CHECK(tally.mutations > 1000);
  CHECK(tally.passed == 0);
  CHECK(tally.findings == 0);
  CHECK(tally.other_errors == 0);
  CHECK(tally.internal_errors == 0);
  CHECK(tally.unnamed == 0);
  CHECK(tally.refused == tally.mutations);
  CHECK(tally.optional_refused == 0);
}

}  // namespace
}  // namespace bevenv::app
