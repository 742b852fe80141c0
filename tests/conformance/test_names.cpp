// PEP 503 name normalization and PEP 508 name validity against packaging.utils.
#include "bevenv/core/name.hpp"
#include "corpus.hpp"

using bevenv::conformance::Disagreements;
using bevenv::conformance::load_jsonl;

TEST_CASE("names normalize and validate as packaging.utils does", "[conformance][name]") {
  const auto records = load_jsonl("names.jsonl");
  REQUIRE(records.size() >= 1000);
  Disagreements bad;
  for (const auto& r : records) {
    const std::string input = r["input"].get<std::string>();
    if (bevenv::core::normalize_name(input) != r["normalized"].get<std::string>()) {
      bad.add("normalize_name differs for " + r.dump());
    }
    if (bevenv::core::is_valid_name(input) != r["valid"].get<bool>()) {
      bad.add("is_valid_name differs for " + r.dump());
    }
  }
  INFO(records.size() << " names, " << bad.count() << " disagreements");
  INFO(bad.first_few());
  CHECK(bad.count() == 0);
}
