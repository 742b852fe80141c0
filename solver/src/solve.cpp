#include "bevenv/solver/solve.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "bevenv/core/name.hpp"
#include "explain.hpp"
#include "solv/solver.hpp"
#include "solve_options.hpp"
#include "universe.hpp"

namespace bevenv::solver {
namespace {

// Links each chosen package to what pulled it in and records the shortest chain from the
// request, by a breadth-first walk over the chosen set.
Solution build_solution(detail::Universe& universe, const std::vector<Id>& chosen_ids) {
  const Database& database = universe.database();
  Solution solution;
  std::vector<Id> chosen;
  for (Id p : chosen_ids) {
    if (universe.is_record(p)) chosen.push_back(p);
  }
  std::sort(chosen.begin(), chosen.end(), [&](Id a, Id b) {
    const auto& ra = database.record(universe.record_of(a));
    const auto& rb = database.record(universe.record_of(b));
    if (ra.name != rb.name) return ra.name < rb.name;
    return ra.version < rb.version;
  });
  std::unordered_map<Id, std::size_t> index_of;
  for (Id p : chosen) {
    const RecordId id = universe.record_of(p);
    const PackageRecord& record = database.record(id);
    index_of.emplace(p, solution.packages.size());
    solution.packages.push_back(
        {id, record.name, record.version, record.kind == RecordKind::system, {}, {}, {}});
  }
  auto chosen_providers = [&](Id dep) {
    std::vector<std::size_t> result;
    for (Id p : universe.candidates(dep)) {
      if (auto it = index_of.find(p); it != index_of.end()) result.push_back(it->second);
    }
    return result;
  };

  std::deque<std::size_t> queue;
  std::vector<bool> reached(solution.packages.size(), false);
  const auto& roots = universe.request().requirements;
  for (std::size_t i = 0; i < roots.size(); ++i) {
    Dependency normalized = roots[i];
    normalized.name = normalize_package_name(roots[i].name);
    for (std::size_t target : chosen_providers(universe.root_dep(i))) {
      ChosenPackage& package = solution.packages[target];
      package.required_by.push_back({std::nullopt, normalized});
      if (!reached[target]) {
        reached[target] = true;
        package.chain = {{std::nullopt, normalized}};
        queue.push_back(target);
      }
    }
  }
  auto visit = [&](std::size_t from) {
    const RecordId id = solution.packages[from].record;
    const PackageRecord& record = database.record(id);
    for (std::size_t i = 0; i < record.requirements.size(); ++i) {
      const Dependency& dependency = record.requirements[i];
      DependencyEdge edge{dependency, chosen_providers(universe.requirement_dep(id, i))};
      for (std::size_t target : edge.satisfied_by) {
        ChosenPackage& package = solution.packages[target];
        package.required_by.push_back({from, dependency});
        if (!reached[target]) {
          reached[target] = true;
          package.chain = solution.packages[from].chain;
          package.chain.push_back({from, dependency});
          queue.push_back(target);
        }
      }
      solution.packages[from].dependencies.push_back(std::move(edge));
    }
  };
  auto drain = [&] {
    while (!queue.empty()) {
      const std::size_t from = queue.front();
      queue.pop_front();
      visit(from);
    }
  };
  drain();
  // System packages nothing asked for still get their edges listed (their chain stays empty).
  for (std::size_t i = 0; i < solution.packages.size(); ++i) {
    if (reached[i]) continue;
    reached[i] = true;
    queue.push_back(i);
    drain();
  }
  return solution;
}

}  // namespace

const ChosenPackage* Solution::find(const std::string& name) const {
  const std::string normalized = normalize_package_name(name);
  for (const auto& package : packages) {
    if (package.name == normalized) return &package;
  }
  return nullptr;
}

std::variant<Solution, Unsolvable> solve(const Database& database, const Request& request) {
  return detail::solve(database, request, detail::UniverseOptions{});
}

namespace {

std::variant<Solution, Unsolvable> solve_universe(detail::Universe& universe) {
  if (Unsolvable unmatched = detail::explain_unmatched_roots(universe); !unmatched.problems.empty())
    return unmatched;
  // A fresh solver each time: it keeps nothing in the pool, so a Session's later solves start
  // from the state a fresh Universe would have, plus the added jobs.
  solv::Solver solver(universe.pool());
  if (solver.solve(universe.jobs()) != 0) return detail::explain(universe, solver);
  return build_solution(universe, solver.transaction().installed_result());
}

}  // namespace

std::variant<Solution, Unsolvable> detail::solve(const Database& database, const Request& request,
                                                 const UniverseOptions& options) {
  detail::Universe universe(database, request, options);
  return solve_universe(universe);
}

Session::Session(const Database& database, Request request)
    : request_(std::make_unique<Request>(std::move(request))),
      universe_(std::make_unique<detail::Universe>(database, *request_)) {}

Session::~Session() = default;

std::variant<Solution, Unsolvable> Session::solve() { return solve_universe(*universe_); }

void Session::prefer(std::vector<Preference> more) {
  const std::size_t first = request_->preferred.size();
  for (Preference& p : more) request_->preferred.push_back(std::move(p));
  universe_->add_preference_jobs(first);
}

}  // namespace bevenv::solver
