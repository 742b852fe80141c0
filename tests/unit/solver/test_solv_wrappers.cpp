// The private RAII layer over libsolv, exercised against the real library.
#include <catch2/catch.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "solv/jobs.hpp"
#include "solv/pool.hpp"
#include "solv/queue.hpp"
#include "solv/repo.hpp"
#include "solv/solver.hpp"

using namespace bevenv::solver;
using namespace bevenv::solver::solv;

// Each kind of id is its own type: a solvable cannot stand where a dependency (or a string) is
// expected, and a raw libsolv Id becomes one only by an explicit construction.
static_assert(!std::is_convertible_v<SolvableId, DepId>);
static_assert(!std::is_convertible_v<DepId, SolvableId>);
static_assert(!std::is_convertible_v<StringId, DepId>);
static_assert(!std::is_convertible_v<Id, SolvableId>);
static_assert(std::is_constructible_v<SolvableId, Id>);

TEST_CASE("Queue grows and reads back", "[solver][solv]") {
  solv::Queue q;
  CHECK(q.empty());
  for (Id i = 1; i <= 100; ++i) q.push(i);
  q.push2(7, 8);
  REQUIRE(q.size() == 102);
  CHECK(q[0] == 1);
  CHECK(q[99] == 100);
  CHECK(q.ids().back() == 8);
  q.clear();
  CHECK(q.empty());
}

TEST_CASE("Pool interns strings and compares EVRs with dpkg rules", "[solver][solv]") {
  solv::PackagePool pool;
  const StringId a = pool.intern("torch");
  CHECK(pool.intern("torch") == a);
  CHECK(pool.text(a) == "torch");
  CHECK(pool.compare_evr("0:1~a1", "0:1") < 0);    // `~` before the end
  CHECK(pool.compare_evr("0:1p1", "0:1.1") < 0);   // letters before `.`
  CHECK(pool.compare_evr("0:1.10", "0:1.9") > 0);  // digit runs are numbers
  CHECK(pool.compare_evr("1:0", "0:99") > 0);      // epoch first
}

namespace {

struct TinyUniverse {
  solv::PackagePool pool;
  solv::JobQueue jobs;
  std::vector<SolvableId> foo;  // foo 1, 2, 3
  SolvableId bar;               // bar 1 requires foo "<3" (answered by the namespace resolver)
  DepId foo_below_3;

  TinyUniverse() {
    solv::Repo repo = pool.add_repo("test");
    for (const char* evr : {"0:1", "0:2", "0:3"}) {
      foo.push_back(repo.add_solvable(pool.intern("foo"), pool.intern(evr)));
    }
    bar = repo.add_solvable(pool.intern("bar"), pool.intern("0:1"));
    foo_below_3 = pool.namespace_dep(pool.intern("foo <3"));
    repo.add_requirement(bar, foo_below_3);
    repo.internalize();
    pool.set_namespace_resolver([this](StringId argument) {
      return pool.text(argument) == "foo <3" ? std::vector<SolvableId>{foo[0], foo[1]}
                                             : std::vector<SolvableId>{};
    });
    pool.create_whatprovides();
  }
};

}  // namespace

TEST_CASE("Namespace resolver decides what satisfies a dependency", "[solver][solv]") {
  TinyUniverse u;
  CHECK(u.pool.whatprovides(u.foo_below_3) == std::vector<SolvableId>{u.foo[0], u.foo[1]});
  CHECK(u.pool.whatprovides(dep_on_name(u.pool.intern("foo"))) == u.foo);
}

TEST_CASE("Solver installs the best candidate and the transaction lists it", "[solver][solv]") {
  TinyUniverse u;
  u.jobs.add(solv::JobAction::install, u.pool.intern("bar"));
  solv::Solver solver(u.pool);
  REQUIRE(solver.solve(u.jobs) == 0);
  std::vector<SolvableId> result = solver.transaction().installed_result();
  std::sort(result.begin(), result.end());
  CHECK(result == std::vector<SolvableId>{u.foo[1], u.bar});  // foo 2: the best below 3
}

TEST_CASE("Solver reports problems and their rules", "[solver][solv]") {
  TinyUniverse u;
  u.jobs.add(solv::JobAction::install, u.pool.intern("bar"));
  u.jobs.add(solv::JobAction::install, u.foo[2]);
  solv::Solver solver(u.pool);
  REQUIRE(solver.solve(u.jobs) == 1);
  const auto problems = solver.problems();
  REQUIRE(problems.size() == 1);
  bool saw_requires = false;
  bool saw_same_name = false;
  for (RuleId rule : solver.problem_rules(problems[0])) {
    for (const auto& info : solver.rule_infos(rule)) {
      saw_requires |= info.kind == solv::RuleKind::requires_ && info.source() == u.bar &&
                      info.dep() == u.foo_below_3;
      saw_same_name |= info.kind == solv::RuleKind::same_name;
      CHECK_FALSE(solver.describe(info).empty());
    }
  }
  CHECK(saw_requires);
  CHECK(saw_same_name);
}
