// The failure catalogue (matrix/data/failures.toml): the fix that fits an environment, where a
// failure applies, and the loader's refusals of broken entries with file and line.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "bevenv/matrix/loader.hpp"
#include "load_errors.hpp"

using namespace bevenv;

namespace {

core::Version v(const char* text) { return core::Version::parse(text).value(); }

const matrix::Matrix& shipped() {
  static const matrix::Matrix m = matrix::load_embedded().value();
  return m;
}

// A host's environment as doctor sees it: the interpreter and every installed distribution.
matrix::FixContext host(const char* python, std::vector<std::pair<const char*, const char*>> pkgs) {
  matrix::FixContext context;
  context.python = v(python);
  for (const auto& [name, version] : pkgs) context.packages.emplace(name, v(version));
  context.packages_known = true;
  return context;
}

std::string fix_text(const char* id, const matrix::FixContext& context) {
  const matrix::Failure* failure = shipped().find_failure(id);
  REQUIRE(failure != nullptr);
  const matrix::FailureFix* fix = failure->fix_for(context);
  REQUIRE(fix != nullptr);
  return fix->text;
}

std::vector<std::string> load_errors(const std::string& overlay) {
  std::vector<matrix::SourceFile> files = matrix::embedded_files();
  files.push_back({"overlay/failures.toml", overlay, 1, matrix::Layer::overlay});
  return matrix::testing::load_errors(files);
}

bool any_contains(const std::vector<std::string>& lines, const std::string& text,
                  const std::string& also = "") {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
    return line.find(text) != std::string::npos && line.find(also) != std::string::npos;
  });
}

}  // namespace

TEST_CASE("failures: the shipped catalogue is complete enough to be the only one", "[matrix]") {
  const auto& m = shipped();
  for (const char* id : {"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
                         "mmcv-ops", "mmcv-duplicate"}) {
    INFO(id);
    const matrix::Failure* failure = m.find_failure(id);
    REQUIRE(failure != nullptr);
    CHECK_FALSE(failure->cause.empty());
    CHECK_FALSE(failure->fixes.empty());
    CHECK_FALSE(failure->sources.empty());
  }
  // Every rule that names a failure names one of the catalogue, and shows its fix unless it has
  // its own.
  for (const auto& rule : m.rules) {
    if (rule.failure.empty()) continue;
    INFO(rule.id);
    CHECK(m.find_failure(rule.failure) != nullptr);
    CHECK_FALSE(rule.fix.empty());
  }
  CHECK(m.find_rule("setuptools-distutils-version")->fix ==
        m.find_failure("F2")->fixes.front().text);
}

TEST_CASE("failures: the setuptools advice is one fact, fitted to the environment", "[matrix]") {
  // Where F2 bites: Python 3.8, torch 1.10: the downgrade, which installs there.
  const auto old_stack = host("3.8.18", {{"torch", "1.10.1+cu113"}, {"setuptools", "59.6.0"}});
  CHECK_THAT(fix_text("F2", old_stack), Catch::Contains("setuptools<59.6"));
  // Python 3.12 with torch 2.11: no setuptools downgrade (none of them installs a torch <1.11).
  const auto h200 = host("3.12.3", {{"torch", "2.11.0"}, {"setuptools", "81.0.0"}});
  CHECK_THAT(fix_text("F2", h200), !Catch::Contains("setuptools<59.6"));
  CHECK_THAT(fix_text("F2", host("3.12.3", {})), !Catch::Contains("setuptools<59.6"));
  CHECK_THAT(fix_text("F2", host("3.10.12", {{"torch", "1.13.1"}})),
             !Catch::Contains("setuptools<59.6"));
  // A log from elsewhere (nothing known): the first fix, the common case.
  CHECK(fix_text("F2", {}) == shipped().find_failure("F2")->fixes.front().text);
  // A fix conditioned on Python only.
  CHECK_THAT(fix_text("trimesh-networkx", host("3.8.18", {})), Catch::Contains("networkx 2.2"));
  CHECK_THAT(fix_text("trimesh-networkx", host("3.10.12", {})), !Catch::Contains("networkx 2.2"));
}

TEST_CASE("failures: where a failure applies at all", "[matrix]") {
  const matrix::Failure& f2 = *shipped().find_failure("F2");
  CHECK(host("3.8.18", {{"torch", "1.10.1"}}).holds(f2.applies));
  CHECK_FALSE(host("3.12.3", {{"torch", "2.11.0"}}).holds(f2.applies));
  CHECK_FALSE(host("3.10.12", {{"torch", "1.13.1"}}).holds(f2.applies));
  // No torch installed: nothing for F2 to break.
  CHECK_FALSE(host("3.8.18", {{"setuptools", "59.6.0"}}).holds(f2.applies));
  // Unknown facts rule nothing out.
  CHECK(matrix::FixContext{}.holds(f2.applies));
  matrix::FixContext python_only;
  python_only.python = v("3.8.18");
  CHECK(python_only.holds(f2.applies));
  python_only.python = v("3.12.0");
  CHECK_FALSE(python_only.holds(f2.applies));
}

TEST_CASE("failures: F3 can happen only beside an mmcv 1.x", "[matrix]") {
  const matrix::Failure& f3 = *shipped().find_failure("F3");
  CHECK(f3.can_happen(host("3.8.18", {{"yapf", "0.40.2"}, {"mmcv-full", "1.4.0"}})));
  CHECK(f3.can_happen(host("3.8.18", {{"yapf", "0.40.2"}, {"mmcv", "1.7.1"}})));
  // mmcv 1.7.2 leaves `verify` out for yapf >=0.40.2 (open-mmlab/mmcv@v1.7.2).
  CHECK_FALSE(f3.can_happen(host("3.8.18", {{"yapf", "0.40.2"}, {"mmcv", "1.7.2"}})));
  // yapf alone, or with mmcv 2.x (whose Config no longer passes `verify`): nothing to break.
  CHECK_FALSE(f3.can_happen(host("3.8.18", {{"yapf", "0.43.0"}})));
  CHECK_FALSE(f3.can_happen(host("3.10.12", {{"yapf", "0.40.2"}, {"mmcv", "2.1.0"}})));
  // A log from elsewhere: unknown facts rule nothing out.
  CHECK(f3.can_happen(matrix::FixContext{}));
}

TEST_CASE("failures: broken entries are refused with file, line and field", "[matrix]") {
  const auto errors = load_errors(
      "[[failure]]\n"                                                              // 1
      "id = \"site-regex\"\n"                                                      // 2
      "title = \"t\"\ncause = \"c\"\n"                                             // 3-4
      "patterns = [{ literal = \"x\", regex = \"unclosed (group\" }]\n"            // 5
      "fixes = [{ text = \"f\" }]\n"                                               // 6
      "sources = [\"https://example.org/a\"]\n"                                    // 7
      "[[failure]]\nid = \"site-ref\"\ntitle = \"t\"\ncause = \"c\"\n"             // 8-11
      "fixes = [{ text = \"f\" }]\nprevented_by = [\"no-such-rule\"]\n"            // 12-13
      "sources = [\"https://example.org/a\"]\n"                                    // 14
      "[[failure]]\n"                                                              // 15
      "id = \"Bad_Id\"\ntitle = \"t\"\ncause = \"c\"\n"                            // 16-18
      "patterns = [{ }]\n"                                                         // 19
      "fixes = [{ when = { python = \"<3.9\", cuda = \"12\" }, text = \"f\" }]\n"  // 20
      "sources = [\"field notes\"]\n"                                              // 21
      "[[rule]]\nid = \"site-rule\"\nkind = \"conflicts\"\nfailure = \"F99\"\n"
      "when.packages = { torch = \"<1.11\" }\nthen = \"setuptools>=59.6\"\n"
      "message = \"m\"\nsources = [\"https://example.org/b\"]\n");
  INFO(Catch::StringMaker<std::vector<std::string>>::convert(errors));
  CHECK(any_contains(errors, "overlay/failures.toml:5:",
                     "`failure.patterns[0].regex`: not a valid ECMAScript regex"));
  CHECK(any_contains(errors, "overlay/failures.toml:8:",
                     "prevented_by` names `no-such-rule`, which is not a rule"));
  CHECK(any_contains(errors, "overlay/failures.toml:16:", "`Bad_Id` must be"));
  CHECK(any_contains(errors, "`failure.patterns[0]`: needs `literal` or `regex`"));
  CHECK(any_contains(errors, "unknown key `cuda`"));
  CHECK(any_contains(errors, "`field notes` is not an upstream source"));
  CHECK(any_contains(errors, "`failure` names `F99`, which is not a `[[failure]]`"));
  CHECK(any_contains(errors, "rule `site-rule`: needs `fix`"));
}

TEST_CASE("failures: an overlay adds a signature without code", "[matrix]") {
  std::vector<matrix::SourceFile> files = matrix::embedded_files();
  files.push_back({"overlay/site.toml",
                   "[[failure]]\nid = \"site-lidar-driver\"\ntitle = \"lidar driver\"\n"
                   "cause = \"the site's lidar driver is too old\"\n"
                   "patterns = [{ regex = \"lidar driver [0-9.]+ too old\" }]\n"
                   "fixes = [{ text = \"update the lidar driver\" }]\n"
                   "sources = [\"https://example.org/site-wiki\"]\n",
                   1, matrix::Layer::overlay});
  const auto loaded = matrix::load_sources(files);
  REQUIRE(loaded.has_value());
  const matrix::Failure* failure = loaded.value().find_failure("site-lidar-driver");
  REQUIRE(failure != nullptr);
  REQUIRE(failure->patterns.size() == 1);
  CHECK(failure->patterns[0].literal.empty());
  CHECK(loaded.value().failures.size() == shipped().failures.size() + 1);
}

TEST_CASE("failures: a fix's placeholders, filled only where the finding has the facts",
          "[matrix]") {
  const auto spans = matrix::placeholders_of("rebuild `{package}` with {arch}");
  REQUIRE(spans.has_value());
  REQUIRE(spans->size() == 2);
  CHECK((*spans)[0].name == "package");
  CHECK((*spans)[1].name == "arch");
  for (const char* bad : {"a } b", "{sm} }", "{}", "{Sm}", "{sm", "{s m}"}) {
    INFO(bad);
    CHECK_FALSE(matrix::placeholders_of(bad).has_value());
  }
  matrix::FailureFix fix{{}, "use `{sm}` or {arch}"};
  CHECK(fix.render({{"sm", "sm_90"}, {"arch", "9.0"}}) == "use `sm_90` or 9.0");
  CHECK(fix.render({{"sm", "sm_90"}}) == "use `sm_90` or {arch}");
  CHECK(fix.has_facts({{"sm", "sm_90"}, {"arch", "9.0"}}));
  CHECK_FALSE(fix.has_facts({{"sm", "sm_90"}, {"arch", ""}}));
  matrix::Failure failure;
  failure.fixes = {fix, {{}, "the fallback"}};
  matrix::FixContext context;
  CHECK(failure.fitting_fix_text(context) == "the fallback");
  context.facts = {{"sm", "sm_90"}, {"arch", "9.0"}};
  CHECK(failure.fitting_fix_text(context) == "use `sm_90` or 9.0");
}
