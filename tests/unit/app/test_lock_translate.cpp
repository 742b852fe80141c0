// The translation of the matrix into solver records (src/app/src/lock_translate.cpp): offline,
// only the packages a solve can reach from the request become records, with the extras that
// reached requirements ask and the rules that bind versions; with a source given, every curated
// package does (an index's release may require any of them).
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "lock_translate.hpp"

using namespace bevenv;

namespace {

core::Version version(const std::string& text) { return core::Version::parse(text).value(); }

// A target (CPython 3.10 on linux) and a matrix of curated records, locked offline.
struct Translate {
  app::LockInputs inputs;

  Translate() {
    inputs.target.python = version("3.10.12");
    inputs.target.python_minor = "3.10";
    inputs.target.glibc = version("2.31");
  }

  void curate(const std::string& name, const std::string& v,
              const std::vector<std::string>& requirements = {}, bool newer_stands_for = false) {
    matrix::PackageVersion build;
    build.name = name;
    build.version = version(v);
    build.newer_stands_for = newer_stands_for;
    for (const auto& r : requirements)
      build.requirements.push_back(core::Requirement::parse(r).value());
    inputs.matrix.packages[name].name = name;
    inputs.matrix.packages[name].versions.push_back(build);
  }

  void require(const std::string& text) {
    inputs.requirements.push_back({core::Requirement::parse(text).value(), "--require"});
  }

  // The names that have records.
  std::set<std::string> names() const {
    std::set<std::string> out;
    for (const std::string& record : records()) out.insert(record.substr(0, record.find(' ')));
    return out;
  }

  // The records made, as `name version`; with `later`, for a solve that merges alike versions
  // and adds those preferences.
  std::set<std::string> records(app::RecordScope scope = app::RecordScope::installable,
                                const std::vector<solver::Preference>* later = nullptr) const {
    const app::Translation t = app::translate(inputs, app::requested_extras(inputs), scope, later);
    std::set<std::string> out;
    for (const auto& record : t.database.records()) {
      if (!app::is_virtual(record.name)) out.insert(record.name + " " + record.version.to_string());
    }
    return out;
  }
};

using Names = std::set<std::string>;

}  // namespace

TEST_CASE("offline, only packages the request can reach become records", "[translate]") {
  Translate t;
  t.curate("app", "1.0", {"lib>=1"});
  t.curate("app", "2.0", {"other"});  // another version's requirement is reached too
  t.curate("lib", "1.0");
  t.curate("other", "1.0");
  t.curate("unrelated", "1.0", {"lib"});
  t.require("app");
  CHECK(t.names() == Names{"app", "lib", "other"});
}

TEST_CASE("a requirement whose marker fails on the target reaches nothing", "[translate]") {
  Translate t;
  t.curate("app", "1.0", {"old; python_version < \"3\"", "win; sys_platform == \"win32\""});
  t.curate("old", "1.0");
  t.curate("win", "1.0");
  t.require("app");
  CHECK(t.names() == Names{"app"});
}

TEST_CASE("an extra asked by a reached requirement reaches what it adds", "[translate]") {
  Translate t;
  t.curate("app", "1.0", {"lib[fast]"});
  t.curate("lib", "1.0", {"speedup; extra == \"fast\"", "tests; extra == \"test\""});
  t.curate("speedup", "1.0");
  t.curate("tests", "1.0");
  t.require("app");
  CHECK(t.names() == Names{"app", "lib", "speedup"});
}

TEST_CASE("an extra asked after its package was reached reaches what it adds", "[translate]") {
  Translate t;
  t.curate("app", "1.0", {"lib", "middle"});
  t.curate("middle", "1.0", {"lib[fast]"});
  t.curate("lib", "1.0", {"speedup; extra == \"fast\""});
  t.curate("speedup", "1.0");
  t.require("app");
  CHECK(t.names() == Names{"app", "lib", "middle", "speedup"});
}

TEST_CASE("the package a binding rule requires is reached with the package it binds",
          "[translate]") {
  Translate t;
  t.curate("torch", "1.10.0");
  t.curate("setuptools", "59.5.0");
  t.curate("unrelated", "1.0");
  matrix::Rule rule;
  rule.id = "torch-needs-old-setuptools";
  rule.kind = matrix::RuleKind::requires_;
  rule.when_packages.push_back({"torch", core::SpecifierSet::parse("<1.11").value()});
  rule.then = core::Requirement::parse("setuptools<59.6").value();
  t.inputs.matrix.rules.push_back(rule);
  t.require("torch");
  CHECK(t.names() == Names{"setuptools", "torch"});
}

TEST_CASE("a build the request's own pins rule out becomes no record and reaches nothing",
          "[translate]") {
  Translate t;
  t.curate("app", "1.0", {"lib"});
  t.curate("app", "2.0", {"other"});  // only this version requires `other`
  t.curate("lib", "1.0");
  t.curate("lib", "2.0");
  t.curate("other", "1.0");
  t.require("app==1.0");
  t.require("lib<2");
  CHECK(t.records() == Names{"app 1.0", "lib 1.0"});
  // An explanation names every build, those the pins rule out too.
  CHECK(t.records(app::RecordScope::all) ==
        Names{"app 1.0", "app 2.0", "lib 1.0", "lib 2.0", "other 1.0"});
}

TEST_CASE("a pinned name whose pins admit a pre-release, or nothing, keeps every build",
          "[translate]") {
  Translate t;
  t.curate("app", "1.0");
  t.curate("app", "2.0rc1");
  t.curate("lib", "1.0");
  t.require("app>=1.5.dev0");  // admits 2.0rc1: pip's rule then reads every release of `app`
  t.require("lib>=3");         // admits nothing: the solve explains it from every build
  CHECK(t.records() == Names{"app 1.0", "app 2.0rc1", "lib 1.0"});
}

TEST_CASE("with a source given, a curated package becomes records when the search asks",
          "[translate]") {
  Translate t;
  t.curate("app", "1.0");
  t.curate("unrelated", "1.0");
  t.require("app");
  t.inputs.index_sources.push_back("find-links /tmp/wheels");
  // An index release may require any curated package: which ones, only the search finds out.
  CHECK(t.names().empty());
  app::Translation translation = app::translate(t.inputs);
  CHECK(app::add_curated_records(translation, "app"));
  CHECK_FALSE(app::add_curated_records(translation, "app"));
  CHECK_FALSE(app::add_curated_records(translation, "not-in-the-matrix"));
  Names made;
  for (const auto& record : translation.database.records()) {
    if (!app::is_virtual(record.name)) made.insert(record.name);
  }
  CHECK(made == Names{"app"});
}

TEST_CASE(
    "a solve that merges alike versions gets no record of the releases stood for, unless "
    "the request tells them apart",
    "[translate]") {
  Translate t;
  t.curate("app", "1.0", {"lib"});
  t.curate("lib", "1.0", {}, true);  // the matrix found 1.2 stands for 1.0 and 1.1
  t.curate("lib", "1.1", {}, true);
  t.curate("lib", "1.2");
  t.require("app");
  const std::vector<solver::Preference> none;
  const auto merged = [&](const std::vector<solver::Preference>& later = {}) {
    return t.records(app::RecordScope::installable, &later);
  };
  CHECK(merged() == Names{"app 1.0", "lib 1.2"});
  // Without the merge (an index lock, a check whether a profile locks), and over all records
  // (an explanation), every release is a record.
  CHECK(t.records() == Names{"app 1.0", "lib 1.0", "lib 1.1", "lib 1.2"});
  CHECK(t.records(app::RecordScope::all, &none) ==
        Names{"app 1.0", "lib 1.0", "lib 1.1", "lib 1.2"});
  // A replaced lock's pin on 1.0 favors it over 1.2, which no longer stands in; 1.1 still does.
  const auto pin = [](const std::string& v) {
    return std::vector<solver::Preference>{{"lib", core::SpecifierSet::parse("===" + v).value()}};
  };
  CHECK(merged(pin("1.0")) == Names{"app 1.0", "lib 1.0", "lib 1.2"});
  CHECK(merged(pin("1.1")) == Names{"app 1.0", "lib 1.1", "lib 1.2"});
  // A pin on the newest favors it over the others: it stands for them still.
  CHECK(merged(pin("1.2")) == Names{"app 1.0", "lib 1.2"});
  // A preference for versions below the newest favors them: the newest of those stands in.
  const std::vector<solver::Preference> below{{"lib", core::SpecifierSet::parse("<1.2").value()}};
  CHECK(merged(below) == Names{"app 1.0", "lib 1.1", "lib 1.2"});
  // So does a user's requirement: `lib<1.2` rules 1.2 out, and 1.1 stands for 1.0.
  t.require("lib<1.2");
  CHECK(merged() == Names{"app 1.0", "lib 1.1"});
}

TEST_CASE("a package whose extras the request asks keeps every release", "[translate]") {
  Translate t;
  t.curate("lib", "1.0", {}, true);
  t.curate("lib", "1.1");
  t.require("lib[fast]");
  const std::vector<solver::Preference> none;
  CHECK(t.records(app::RecordScope::installable, &none) == Names{"lib 1.0", "lib 1.1"});
}

TEST_CASE("a build outside the target's Python range becomes no record and reaches nothing",
          "[translate]") {
  Translate t;  // CPython 3.10
  t.curate("app", "1.0", {"lib"});
  t.curate("app", "2.0", {"other"});
  t.inputs.matrix.packages["app"].versions.back().python =
      core::SpecifierSet::parse(">=3.11").value();
  t.curate("lib", "1.0");
  t.curate("other", "1.0");
  t.require("app");
  CHECK(t.records() == Names{"app 1.0", "lib 1.0"});
  CHECK(t.records(app::RecordScope::all) == Names{"app 1.0", "app 2.0", "lib 1.0", "other 1.0"});
}
