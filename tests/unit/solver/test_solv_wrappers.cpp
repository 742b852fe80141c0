// The private RAII layer over libsolv, exercised against the real library.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "solv/jobs.hpp"
#include "solv/pool.hpp"
#include "solv/queue.hpp"
#include "solv/repo.hpp"
#include "solv/solver.hpp"

using namespace bevenv::solver;

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
  const Id a = pool.intern("torch");
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
  solv::Queue jobs;
  std::vector<Id> foo;  // foo 1, 2, 3
  Id bar = 0;           // bar 1 requires foo "<3" (answered by the namespace resolver)
  Id foo_below_3 = 0;

  TinyUniverse() {
    solv::Repo repo = pool.add_repo("test");
    for (const char* evr : {"0:1", "0:2", "0:3"}) {
      foo.push_back(repo.add_solvable(pool.intern("foo"), pool.intern(evr)));
    }
    bar = repo.add_solvable(pool.intern("bar"), pool.intern("0:1"));
    foo_below_3 = pool.namespace_dep(pool.intern("foo <3"));
    repo.add_requirement(bar, foo_below_3);
    repo.internalize();
    pool.set_namespace_resolver([this](Id argument) {
      return pool.text(argument) == "foo <3" ? std::vector<Id>{foo[0], foo[1]} : std::vector<Id>{};
    });
    pool.create_whatprovides();
  }
};

}  // namespace

TEST_CASE("Namespace resolver decides what satisfies a dependency", "[solver][solv]") {
  TinyUniverse u;
  CHECK(u.pool.whatprovides(u.foo_below_3) == std::vector<Id>{u.foo[0], u.foo[1]});
  CHECK(u.pool.whatprovides(u.pool.intern("foo")) == u.foo);
}

TEST_CASE("Solver installs the best candidate and the transaction lists it", "[solver][solv]") {
  TinyUniverse u;
  solv::push_job(u.jobs, solv::JobAction::install, solv::JobSelect::name, u.pool.intern("bar"));
  solv::Solver solver(u.pool);
  REQUIRE(solver.solve(u.jobs) == 0);
  std::vector<Id> result = solver.transaction().installed_result();
  std::sort(result.begin(), result.end());
  CHECK(result == std::vector<Id>{u.foo[1], u.bar});  // foo 2: the best below 3
}

TEST_CASE("Solver reports problems and their rules", "[solver][solv]") {
  TinyUniverse u;
  solv::push_job(u.jobs, solv::JobAction::install, solv::JobSelect::name, u.pool.intern("bar"));
  solv::push_job(u.jobs, solv::JobAction::install, solv::JobSelect::solvable, u.foo[2]);
  solv::Solver solver(u.pool);
  REQUIRE(solver.solve(u.jobs) == 1);
  const auto problems = solver.problems();
  REQUIRE(problems.size() == 1);
  bool saw_requires = false;
  bool saw_same_name = false;
  for (Id rule : solver.problem_rules(problems[0])) {
    for (const auto& info : solver.rule_infos(rule)) {
      saw_requires |= info.kind == solv::RuleKind::requires_ && info.source == u.bar &&
                      info.dep == u.foo_below_3;
      saw_same_name |= info.kind == solv::RuleKind::same_name;
      CHECK_FALSE(solver.describe(info).empty());
    }
  }
  CHECK(saw_requires);
  CHECK(saw_same_name);
}
