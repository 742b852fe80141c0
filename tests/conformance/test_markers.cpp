// PEP 508 markers against Python's `packaging` (corpus from gen_markers.py): which texts are
// valid, their canonical text, and their value in many environments.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "bevenv/core/error.hpp"
#include "bevenv/core/marker.hpp"
#include "corpus.hpp"

namespace {

using bevenv::core::Marker;
using bevenv::core::MarkerEnvironment;

constexpr auto describe_parse = &bevenv::conformance::describe_parse<Marker>;

}  // namespace

TEST_CASE("markers parse, print and evaluate as packaging does", "[conformance][pep508]") {
  const auto records = bevenv::conformance::load_jsonl("pep508_markers.jsonl");
  std::map<int, MarkerEnvironment> environments;
  std::size_t parsed = 0;
  std::size_t evaluated = 0;
  bevenv::conformance::Disagreements bad;

  for (const auto& record : records) {
    if (record.contains("values")) {
      MarkerEnvironment& env = environments[record["env"].get<int>()];
      for (const auto& [key, value] : record["values"].items()) {
        env.values[key] = value.get<std::string>();
      }
    } else if (record.contains("marker")) {
      ++parsed;
      const auto text = record["marker"].get<std::string>();
      auto marker = Marker::parse(text);
      if (record["str"].is_null()) {
        if (marker)
          bad.add("marker `" + text + "`: packaging rejects it, bevenv reads `" +
                  marker->to_string() + "`");
        continue;
      }
      const auto expected = record["str"].get<std::string>();
      if (!marker || marker->to_string() != expected) {
        bad.add("marker `" + text + "`: packaging `" + expected + "`, bevenv " +
                describe_parse(text));
      } else if (bevenv::conformance::prints_as_written(expected) &&
                 describe_parse(expected) != "`" + expected + "`") {
        bad.add("marker `" + expected + "` reads back as " + describe_parse(expected));
      }
    } else if (record.contains("eval")) {
      ++evaluated;
      const auto text = record["eval"].get<std::string>();
      auto marker = Marker::parse(text);
      if (!marker) {
        bad.add("marker `" + text + "` should parse: " + marker.error().to_string());
        continue;
      }
      const int env_id = record["env"].get<int>();
      auto result = marker->evaluate(environments.at(env_id));
      const std::string got = !result ? "error" : result.value() ? "true" : "false";
      if (got != record["result"].get<std::string>()) {
        bad.add("marker `" + text + "` in environment " + std::to_string(env_id) + ": packaging " +
                record["result"].get<std::string>() + ", bevenv " + got +
                (result ? "" : " (" + result.error() + ")"));
      }
    }
  }
  INFO(parsed << " markers, " << evaluated << " evaluations, " << bad.count() << " disagreements");
  CHECK(bad.count() == 0);
  CHECK(parsed >= 2000);
  CHECK(evaluated >= 2000);
}
