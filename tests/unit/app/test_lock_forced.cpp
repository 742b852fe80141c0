// ForcedPackages (src/app/src/lock_forced.cpp): `prefer` rules bound to packages decided from
// the request and the records alone, before any solve, and left open where only a solve tells.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lock_forced.hpp"

using bevenv::app::ForcedPackages;
using bevenv::matrix::Truth;
namespace core = bevenv::core;
namespace matrix = bevenv::matrix;
namespace solver = bevenv::solver;

namespace {

core::SpecifierSet spec(const std::string& text) { return core::SpecifierSet::parse(text).value(); }

solver::PackageRecord record(const std::string& name, const std::string& version,
                             std::vector<solver::Dependency> requirements = {}) {
  solver::PackageRecord r;
  r.name = name;
  r.version = core::Version::parse(version).value();
  r.requirements = std::move(requirements);
  return r;
}

solver::Dependency dep(const std::string& name, const std::string& specifier) {
  return {name, spec(specifier), "test"};
}

matrix::Rule when(const std::string& name, const std::string& specifier) {
  matrix::Rule rule;
  rule.id = "test";
  rule.kind = matrix::RuleKind::prefer;
  rule.when_packages.push_back({name, spec(specifier)});
  return rule;
}

// torch 1.10.0 / 1.11.0 / 1.13.0; mmcv 1.0 and 2.0 both need torch (different ranges) and numpy.
solver::Database universe() {
  solver::Database db;
  for (const char* v : {"1.10.0", "1.11.0", "1.13.0"}) db.add(record("torch", v));
  db.add(record("mmcv", "1.0", {dep("torch", "<1.11"), dep("numpy", "<1.20")}));
  db.add(record("mmcv", "2.0", {dep("torch", ">=1.11"), dep("numpy", "")}));
  for (const char* v : {"1.19.5", "1.24.4"}) db.add(record("numpy", v));
  db.add(record("tensorboard", "2.0", {dep("pillow", "")}));
  return db;
}

Truth decide(const solver::Database& db, const std::vector<solver::Dependency>& roots,
             const matrix::Rule& rule) {
  solver::Request request;
  request.requirements = roots;
  return ForcedPackages(db, request).package_conditions(rule);
}

}  // namespace

TEST_CASE("a root pin decides a condition on its package", "[lock]") {
  const auto db = universe();
  CHECK(decide(db, {dep("Torch", "==1.10.0")}, when("torch", "<1.11")) == Truth::yes);
  CHECK(decide(db, {dep("torch", ">=1.11")}, when("torch", "<1.11")) == Truth::no);
  // Either side is still possible: only a solution tells.
  CHECK(decide(db, {dep("torch", "")}, when("torch", "<1.11")) == Truth::unknown);
}

TEST_CASE("a package nothing forces is decided only when no record matches", "[lock]") {
  const auto db = universe();
  CHECK(decide(db, {dep("torch", "")}, when("pillow", "")) == Truth::no);  // no record at all
  CHECK(decide(db, {dep("torch", "")}, when("torch", ">=2")) == Truth::no);
  CHECK(decide(db, {dep("torch", "")}, when("tensorboard", "")) == Truth::unknown);
}

TEST_CASE("what every candidate of a forced package requires is forced too", "[lock]") {
  const auto db = universe();
  // Both mmcv releases need numpy; only mmcv 1.0 (torch <1.11) caps it below 1.20.
  CHECK(decide(db, {dep("mmcv", "")}, when("numpy", "")) == Truth::yes);
  CHECK(decide(db, {dep("mmcv", "==1.0")}, when("numpy", "<1.20")) == Truth::yes);
  CHECK(decide(db, {dep("mmcv", "")}, when("numpy", "<1.20")) == Truth::unknown);
  CHECK(decide(db, {dep("mmcv", "==2.0")}, when("torch", "<1.11")) == Truth::no);
  // Every condition of a rule must hold.
  matrix::Rule both = when("torch", "<1.11");
  both.when_packages.push_back({"numpy", spec("<1.20")});
  CHECK(decide(db, {dep("mmcv", "==1.0")}, both) == Truth::yes);
  CHECK(decide(db, {dep("mmcv", "")}, both) == Truth::unknown);
}

TEST_CASE("a name another record provides, or a system record's needs, force nothing", "[lock]") {
  auto db = universe();
  solver::PackageRecord stand_in = record("torch-stand-in", "1.0");
  stand_in.provides.push_back({"torch", core::Version::parse("1.12").value()});
  db.add(std::move(stand_in));
  CHECK(decide(db, {dep("torch", "==1.10.0")}, when("torch", "<1.11")) == Truth::unknown);

  // A system record is a fact: what it would need is not solved for, so it forces nothing.
  solver::Database with_host = universe();
  solver::PackageRecord host = record("host", "1.0", {dep("numpy", "<1.20")});
  host.kind = solver::RecordKind::system;
  with_host.add(std::move(host));
  CHECK(decide(with_host, {dep("host", "")}, when("numpy", "<1.20")) == Truth::unknown);
}
