// PEP 508 requirements against Python's `packaging` (corpus from gen_markers.py): which texts
// are valid, and the canonical text of the valid ones.
#include <catch2/catch.hpp>
#include <string>

#include "bevenv/core/error.hpp"
#include "bevenv/core/requirement.hpp"
#include "corpus.hpp"

namespace {

using bevenv::core::Requirement;

std::string describe_parse(const std::string& text) {
  auto requirement = Requirement::parse(text);
  return requirement ? "`" + requirement->to_string() + "`"
                     : "invalid (" + requirement.error().to_string() + ")";
}

// packaging prints marker values as they are, so one holding a backslash or a line break
// does not read back as itself. Nor does an extra such as `cuda_`, whose normalized form
// `cuda-` is not a valid extra name. Only the other texts can be held to the round trip.
bool reads_back(const Requirement& requirement, const std::string& text) {
  for (const std::string& extra : requirement.extras) {
    if (extra.ends_with('-')) return false;
  }
  for (char c : text) {
    if (c == '\\' || c == '\n' || c == '\r' || c == '\0') return false;
  }
  return true;
}

}  // namespace

TEST_CASE("requirements parse and print as packaging does", "[conformance][pep508]") {
  const auto records = bevenv::conformance::load_jsonl("pep508_requirements.jsonl");
  std::size_t valid = 0;
  bevenv::conformance::Disagreements bad;
  for (const auto& record : records) {
    const auto text = record["requirement"].get<std::string>();
    auto requirement = Requirement::parse(text);
    if (record["str"].is_null()) {
      if (requirement) {
        bad.add("requirement `" + text + "`: packaging rejects it, bevenv reads `" +
                requirement->to_string() + "`");
      }
      continue;
    }
    ++valid;
    const auto expected = record["str"].get<std::string>();
    if (!requirement || requirement->to_string() != expected) {
      bad.add("requirement `" + text + "`: packaging `" + expected + "`, bevenv " +
              describe_parse(text));
    } else if (reads_back(requirement.value(), expected) &&
               describe_parse(expected) != "`" + expected + "`") {
      bad.add("requirement `" + expected + "` reads back as " + describe_parse(expected));
    }
  }
  INFO(records.size() << " requirements (" << valid << " valid), " << bad.count()
                      << " disagreements");
  CHECK(bad.count() == 0);
  CHECK(records.size() >= 2000);
}
