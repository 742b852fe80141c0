// Solver behaviour through the public API, on scenarios written in scenario.hpp's format.
#include <catch2/catch.hpp>
#include <string>

#include "bevenv/solver/solve.hpp"
#include "scenario.hpp"

using namespace bevenv::solver;

namespace {

Solution solved(const std::string& text) {
  auto scenario = testing::parse_scenario(text);
  auto result = solve(scenario.database, scenario.request);
  if (auto* unsolvable = std::get_if<Unsolvable>(&result)) {
    std::string lines;
    for (const auto& line : render_explanation(*unsolvable)) lines += line + "\n";
    FAIL("expected a solution, got:\n" << lines);
  }
  return std::get<Solution>(std::move(result));
}

Unsolvable unsolvable(const std::string& text) {
  auto scenario = testing::parse_scenario(text);
  auto result = solve(scenario.database, scenario.request);
  REQUIRE(std::holds_alternative<Unsolvable>(result));
  return std::get<Unsolvable>(std::move(result));
}

std::string version_of(const Solution& solution, const std::string& name) {
  const ChosenPackage* package = solution.find(name);
  return package == nullptr ? "(absent)" : package->version.to_string();
}

}  // namespace

TEST_CASE("the newest allowed version is chosen, in PEP 440 order", "[solver]") {
  const auto s = solved(R"(
package numpy 1.9.0
package numpy 1.10.0
package numpy 1.10.0.post1
package numpy 1.11.0.dev1
package numpy 1.2
want numpy <1.11
)");
  CHECK(version_of(s, "numpy") == "1.10.0.post1");
}

TEST_CASE("specifier semantics are PEP 440's, not libsolv's", "[solver]") {
  const std::string universe = R"(
package torch 1.10.0
package torch 1.10.1
package torch 1.10.1+cu113
package torch 1.10.2
package torch 1.11.0rc1
package torch 1.9.1
)";
  CHECK(version_of(solved(universe + "want torch ==1.10.1\n"), "torch") == "1.10.1+cu113");
  CHECK(version_of(solved(universe + "want torch ==1.9.*\n"), "torch") == "1.9.1");
  CHECK(version_of(solved(universe + "want torch ~=1.10.0\n"), "torch") == "1.10.2");
  CHECK(version_of(solved(universe + "want torch !=1.10.2,<1.11\n"), "torch") == "1.10.1+cu113");
  CHECK(version_of(solved(universe + "want torch <=1.10.1\n"), "torch") == "1.10.1+cu113");
  CHECK(version_of(solved(universe + "want torch <1.11.0\n"), "torch") == "1.10.2");
  CHECK(version_of(solved(universe + "want torch ==1.10.1+cu113\n"), "torch") == "1.10.1+cu113");
}

TEST_CASE("stable releases are preferred over pre-releases, as pip does", "[solver]") {
  const std::string universe = R"(
package mmdet3d 0.17.3
package mmdet3d 1.0.0rc6
)";
  CHECK(version_of(solved(universe + "want mmdet3d\n"), "mmdet3d") == "0.17.3");
  // A specifier that names a pre-release allows them.
  CHECK(version_of(solved(universe + "want mmdet3d >=1.0.0rc1\n"), "mmdet3d") == "1.0.0rc6");
  // No final release matches: the pre-release is taken.
  CHECK(version_of(solved(universe + "want mmdet3d >=0.18\n"), "mmdet3d") == "1.0.0rc6");
  // Asked for, per package or for all.
  CHECK(version_of(solved(universe + "want mmdet3d\nallow-prereleases mmdet3d\n"), "mmdet3d") ==
        "1.0.0rc6");
  CHECK(version_of(solved(universe + "want mmdet3d\nallow-prereleases\n"), "mmdet3d") ==
        "1.0.0rc6");
}

TEST_CASE("pre-release permission is per package, as pip merges specifiers", "[solver]") {
  const std::string universe = R"(
package mmdet3d 0.17.3
package mmdet3d 1.0.0rc6
package uniad 1.0
  requires mmdet3d >=1.0.0rc1 | uniad requirements.txt
)";
  // One requirement names a pre-release: a bare requirement on the same name accepts it too.
  CHECK(version_of(solved(universe + "want mmdet3d\nwant uniad\n"), "mmdet3d") == "1.0.0rc6");
  // A requirement that admits it only because no final release matches does the same.
  CHECK(version_of(solved("package a 0.9\npackage a 1.2rc1\nwant a !=2.0\nwant a >=1.1\n"), "a") ==
        "1.2rc1");
  // A pre-release admitted somewhere is still chosen only when no final release works.
  const std::string inactive = universe +
                               "package tool 2.0\n  requires mmdet3d >=1.0.0rc1\n  requires gone\n"
                               "package tool 1.0\n";
  const auto s = solved(inactive + "want mmdet3d\nwant tool\n");
  CHECK(version_of(s, "tool") == "1.0");
  CHECK(version_of(s, "mmdet3d") == "0.17.3");
}

TEST_CASE("a preferred known-good version is tried first", "[solver]") {
  const std::string universe = R"(
package yapf 0.40.1
package yapf 0.40.2
package yapf 0.32.0
)";
  CHECK(version_of(solved(universe + "want yapf\n"), "yapf") == "0.40.2");
  CHECK(version_of(solved(universe + "want yapf\nprefer yapf ==0.40.1\n"), "yapf") == "0.40.1");
  CHECK(version_of(solved(universe + "want yapf\ndisfavor yapf >=0.40.2\n"), "yapf") == "0.40.1");
  // A preference gives way to a requirement.
  CHECK(version_of(solved(universe + "want yapf <0.40\nprefer yapf ==0.40.1\n"), "yapf") ==
        "0.32.0");
  // Record-level flags work the same way.
  CHECK(version_of(solved("package a 1.0 preferred\npackage a 2.0\nwant a\n"), "a") == "1.0");
  CHECK(version_of(solved("package a 1.0\npackage a 2.0 disfavored\nwant a\n"), "a") == "1.0");
}

TEST_CASE("dependencies are followed and older versions chosen when newer ones fail", "[solver]") {
  const auto s = solved(R"(
package mmdet3d 0.17.1
  requires mmcv-full >=1.3.8,<=1.4.0 | mmdet3d/__init__.py, v0.17.1
  requires mmdet >=2.14.0,<3.0.0
package mmcv-full 1.3.8
package mmcv-full 1.4.0
package mmcv-full 1.6.0
package mmdet 2.19.0
  requires mmcv-full >=1.3.17,<1.5.0
package mmdet 3.0.0
want mmdet3d ==0.17.1
)");
  CHECK(version_of(s, "mmcv-full") == "1.4.0");
  CHECK(version_of(s, "mmdet") == "2.19.0");
  const ChosenPackage* mmcv = s.find("mmcv-full");
  REQUIRE(mmcv != nullptr);
  REQUIRE(mmcv->chain.size() == 2);
  CHECK_FALSE(mmcv->chain[0].from.has_value());
  CHECK(mmcv->chain[0].dependency.name == "mmdet3d");
  CHECK(s.packages[*mmcv->chain[1].from].name == "mmdet3d");
  CHECK(mmcv->chain[1].dependency.origin == "mmdet3d/__init__.py, v0.17.1");
  CHECK(mmcv->required_by.size() == 2);  // by mmdet3d and by mmdet
  const ChosenPackage* mmdet3d = s.find("mmdet3d");
  REQUIRE(mmdet3d->dependencies.size() == 2);
  CHECK(s.packages[mmdet3d->dependencies[0].satisfied_by.at(0)].name == "mmcv-full");
}

TEST_CASE("imposed conflicts steer the choice", "[solver]") {
  const auto s = solved(R"(
package torch 2.0.1
package torch 1.13.1
package mmcv-full 1.4.0
want torch
want mmcv-full
conflict mmcv-full <1.5 with torch >=2 | rule `mmcv-wheels`
)");
  CHECK(version_of(s, "torch") == "1.13.1");
  const auto f = solved(R"(
package torch 2.0.1
package torch 1.13.1
want torch
forbid torch ==2.0.1 | rule `known-bad`
)");
  CHECK(version_of(f, "torch") == "1.13.1");
}

TEST_CASE("declared conflicts of a record are honoured", "[solver]") {
  const auto s = solved(R"(
package opencv-python 4.8.0
  conflicts numpy >=2 | opencv-python 4.8.0 metadata
package numpy 2.0.0
package numpy 1.26.4
want opencv-python
want numpy
)");
  CHECK(version_of(s, "numpy") == "1.26.4");
}

TEST_CASE("virtual packages gate builds for the target", "[solver]") {
  const std::string torch = R"(
package torch 2.0.1+cu118
  requires __cuda >=11.8 | torch wheel tag cu118
package torch 2.0.1+cu117
  requires __cuda >=11.7 | torch wheel tag cu117
package torch 2.0.1+cpu
want torch ==2.0.1
)";
  CHECK(version_of(solved(torch + "package __cuda 12.2 system\n"), "torch") == "2.0.1+cu118");
  CHECK(version_of(solved(torch + "package __cuda 11.7 system\n"), "torch") == "2.0.1+cu117");
  CHECK(version_of(solved(torch), "torch") == "2.0.1+cpu");
  const auto s = solved(torch + "package __cuda 12.2 system\n");
  const ChosenPackage* cuda = s.find("__cuda");
  REQUIRE(cuda != nullptr);
  CHECK(cuda->is_system);
}

TEST_CASE("a system record provides extra names at their own versions", "[solver]") {
  const std::string universe = R"(
package host 1 system
  provides __sm 7.5
  provides __sm 8.6
package kernels 2.0
  requires __sm >=8.0 | kernels built for sm_80+
package kernels 1.0
  requires __sm >=7.0
want kernels
)";
  CHECK(version_of(solved(universe), "kernels") == "2.0");
  const auto old_gpu = std::string(universe).replace(universe.find("8.6"), 3, "7.0");
  CHECK(version_of(solved(old_gpu), "kernels") == "1.0");
}

TEST_CASE("system records are never replaced", "[solver]") {
  const auto u = unsolvable(R"(
package torch 1.13.1 system
package torch 2.0.1
want torch >=2
)");
  CHECK_FALSE(u.problems.empty());
  const auto s = solved("package torch 1.13.1 system\npackage torch 2.0.1\nwant torch\n");
  CHECK(version_of(s, "torch") == "1.13.1");
}

TEST_CASE("names are normalized on the way in", "[solver]") {
  const auto s = solved("package Mmcv_Full 1.4.0\nwant mmcv.full\n");
  CHECK(version_of(s, "MMCV-full") == "1.4.0");
}

TEST_CASE("explanations carry structured facts for JSON", "[solver]") {
  const auto u = unsolvable(R"(
package a 1.0
  requires b >=2 | a's metadata
package b 1.0
want a | the request
)");
  REQUIRE(u.problems.size() == 1);
  const auto& root = u.problems[0].steps.at(0);
  CHECK(root.kind == StepKind::wants);
  CHECK(root.package == "a");
  REQUIRE(root.children.size() == 1);
  const auto& requires_step = root.children[0];
  CHECK(requires_step.kind == StepKind::requires_);
  CHECK(requires_step.origin == "a's metadata");
  REQUIRE(requires_step.children.size() == 1);
  CHECK(requires_step.children[0].kind == StepKind::nothing_matches);
  CHECK(requires_step.children[0].other_versions == std::vector<std::string>{"1.0"});
}

TEST_CASE("a root requirement nothing satisfies is a problem", "[solver]") {
  const auto u = unsolvable("package a 1.0\nwant a >=2\n");
  CHECK(u.problems.size() == 1);
  const auto v = unsolvable("package a 1.0\nwant nothing-like-it\n");
  CHECK(v.problems.size() == 1);
}

namespace {

// Every chosen package with its version and what it was chosen for, as one comparable text.
std::string solution_text(const std::variant<Solution, Unsolvable>& result) {
  const auto* solution = std::get_if<Solution>(&result);
  if (solution == nullptr) return "unsolvable";
  std::string text;
  for (const auto& package : solution->packages) {
    text += package.name + " " + package.version.to_string() + " <-";
    for (const auto& link : package.chain) text += " " + link.dependency.name;
    text += "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("a session solves again with added preferences as a fresh solve would", "[solver]") {
  // `six` has enough versions for a ladder, so the reused pool carries one.
  std::string universe =
      "package torch 1.10.0\n  requires setuptools\n  requires six\n"
      "package torch 1.11.0\n  requires setuptools\n  requires six\n"
      "package setuptools 59.5.0\npackage setuptools 69.5.1\n"
      "package other 1.0\n  requires six <1.20\n";
  for (int minor = 0; minor < 45; ++minor)
    universe += "package six 1." + std::to_string(minor) + "\n";
  universe += "want torch\nwant other\nprefer torch ==1.10.0\n";
  const auto plain = testing::parse_scenario(universe);
  Session session(plain.database, plain.request);
  const auto first = session.solve();
  CHECK(solution_text(first) == solution_text(solve(plain.database, plain.request)));
  CHECK(version_of(std::get<Solution>(first), "setuptools") == "69.5.1");

  session.prefer({{"setuptools", bevenv::core::SpecifierSet::parse("==59.5.0").value()},
                  {"six", bevenv::core::SpecifierSet::parse("==1.3").value()}});
  const auto second = session.solve();
  const auto fresh =
      testing::parse_scenario(universe + "prefer setuptools ==59.5.0\nprefer six ==1.3\n");
  CHECK(solution_text(second) == solution_text(solve(fresh.database, fresh.request)));
  CHECK(version_of(std::get<Solution>(second), "setuptools") == "59.5.0");
  CHECK(version_of(std::get<Solution>(second), "six") == "1.3");
  CHECK(version_of(std::get<Solution>(second), "torch") == "1.10.0");
  CHECK(session.request().preferred.size() == 3);
}
