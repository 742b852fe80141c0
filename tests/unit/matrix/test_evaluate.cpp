#include <catch2/catch.hpp>
#include <string>

#include "bevenv/matrix/evaluate.hpp"
#include "bevenv/matrix/loader.hpp"

using namespace bevenv;

namespace {

core::Version v(const char* text) { return core::Version::parse(text).value(); }

// The shipped rule `id`; the test stops where the matrix has none.
matrix::Rule shipped_rule(const std::string& id) {
  auto loaded = matrix::load_embedded();
  REQUIRE(loaded.has_value());
  const matrix::Rule* rule = loaded->find_rule(id);
  REQUIRE(rule != nullptr);
  return *rule;
}

}  // namespace

TEST_CASE("a conflicts rule is violated only when `when` and `then` both hold") {
  const matrix::Rule rule = shipped_rule("setuptools-distutils-version");
  matrix::Selection s;
  s.pins["torch"] = v("1.10.1+cu113");
  s.pins["setuptools"] = v("59.6.0");
  CHECK(matrix::check_rule(rule, s) == matrix::Verdict::violated);
  s.pins["setuptools"] = v("59.5.0");
  CHECK(matrix::check_rule(rule, s) == matrix::Verdict::satisfied);
  s.pins["torch"] = v("1.11.0+cu113");
  s.pins["setuptools"] = v("70.0.0");
  CHECK(matrix::check_rule(rule, s) == matrix::Verdict::not_applicable);
  s.pins.erase("torch");
  CHECK(matrix::check_rule(rule, s) == matrix::Verdict::not_applicable);
}

TEST_CASE("a target condition without the fact leaves the verdict undecided") {
  const matrix::Rule rule = shipped_rule("torch1-no-sass-for-hopper");
  matrix::Selection s;
  s.pins["torch"] = v("1.10.1+cu113");
  CHECK(matrix::check_rule(rule, s) == matrix::Verdict::undecided);
  s.target.gpu_arch = "sm_86";
  CHECK(matrix::check_rule(rule, s) == matrix::Verdict::not_applicable);
  s.target.gpu_arch = "sm_90";
  CHECK(matrix::check_rule(rule, s) == matrix::Verdict::violated);
  s.pins["torch"] = v("2.0.1+cu118");
  CHECK(matrix::check_rule(rule, s) == matrix::Verdict::satisfied);
}

TEST_CASE("rules_touching names the rules whose when or then match a version") {
  auto loaded = matrix::load_embedded();
  REQUIRE(loaded.has_value());
  std::vector<std::string> ids;
  for (const auto* rule : loaded->rules_touching("yapf", v("0.40.2"))) ids.push_back(rule->id);
  CHECK(ids == std::vector<std::string>{"yapf-verify-keyword", "yapf-verify-keyword-mmcv"});
  CHECK(loaded->rules_touching("yapf", v("0.40.1")).empty());
}
