// PEP 508 requirements against Python's `packaging` (corpus from gen_markers.py): which texts
// are valid, and the canonical text of the valid ones.
#include <catch2/catch.hpp>
#include <string>

#include "bevenv/core/error.hpp"
#include "bevenv/core/requirement.hpp"
#include "corpus.hpp"

namespace {

using bevenv::core::Requirement;

constexpr auto describe_parse = &bevenv::conformance::describe_parse<Requirement>;

// Besides marker values printed as they are, an extra such as `cuda_` does not read back as
// itself: its normalized form `cuda-` is not a valid extra name.
bool reads_back(const Requirement& requirement, const std::string& text) {
  for (const std::string& extra : requirement.extras) {
    if (extra.ends_with('-')) return false;
  }
  return bevenv::conformance::prints_as_written(text);
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
