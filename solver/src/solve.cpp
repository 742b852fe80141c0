#include "bevenv/solver/solve.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "bevenv/core/name.hpp"
#include "explain.hpp"
#include "solv/solver.hpp"
#include "solve_options.hpp"
#include "universe.hpp"

namespace bevenv::solver::detail {
namespace {

// Links each chosen package to what pulled it in and records the shortest chain from the
// request, by a breadth-first walk over the chosen set.
class SolutionBuilder {
 public:
  SolutionBuilder(const detail::Universe& universe, const std::vector<SolvableId>& chosen_ids)
      : universe_(universe), database_(universe.database()) {
    add_packages(chosen_ids);
    reached_.assign(solution_.packages.size(), false);
  }

  Solution build() {
    link_roots();
    drain();
    // System packages nothing asked for still get their edges listed (their chain stays empty).
    for (std::size_t i = 0; i < solution_.packages.size(); ++i) {
      if (reached_[i]) continue;
      reached_[i] = true;
      queue_.push_back(i);
      drain();
    }
    return std::move(solution_);
  }

 private:
  // The chosen records, by name then version, as the solution lists them.
  void add_packages(const std::vector<SolvableId>& chosen_ids) {
    std::vector<SolvableId> chosen;
    for (SolvableId p : chosen_ids) {
      if (universe_.is_record(p)) chosen.push_back(p);
    }
    std::sort(chosen.begin(), chosen.end(), [&](SolvableId a, SolvableId b) {
      const auto& ra = database_.record(universe_.record_of(a));
      const auto& rb = database_.record(universe_.record_of(b));
      if (ra.name != rb.name) return ra.name < rb.name;
      return ra.version < rb.version;
    });
    for (SolvableId p : chosen) {
      const RecordId id = universe_.record_of(p);
      const PackageRecord& record = database_.record(id);
      index_of_.emplace(p, solution_.packages.size());
      solution_.packages.push_back(
          {id, record.name, record.version, record.kind == RecordKind::system, {}, {}, {}});
    }
  }

  std::vector<std::size_t> chosen_providers(DepId dep) const {
    std::vector<std::size_t> result;
    for (SolvableId p : universe_.candidates(dep)) {
      if (auto it = index_of_.find(p); it != index_of_.end()) result.push_back(it->second);
    }
    return result;
  }

  // `target` is required through `link`; the first time it is reached, its chain is `from`'s
  // (empty for the request) and the link.
  void reach(std::size_t target, std::optional<std::size_t> from, const Dependency& dependency) {
    ChosenPackage& package = solution_.packages[target];
    package.required_by.push_back({from, dependency});
    if (reached_[target]) return;
    reached_[target] = true;
    if (from) package.chain = solution_.packages[*from].chain;
    package.chain.push_back({from, dependency});
    queue_.push_back(target);
  }

  void link_roots() {
    const auto& roots = universe_.request().requirements;
    for (std::size_t i = 0; i < roots.size(); ++i) {
      Dependency normalized = roots[i];
      normalized.name = normalize_package_name(roots[i].name);
      for (std::size_t target : chosen_providers(universe_.root_dep(i))) {
        reach(target, std::nullopt, normalized);
      }
    }
  }

  void visit(std::size_t from) {
    const RecordId id = solution_.packages[from].record;
    const PackageRecord& record = database_.record(id);
    for (std::size_t i = 0; i < record.requirements.size(); ++i) {
      const Dependency& dependency = record.requirements[i];
      DependencyEdge edge{dependency, chosen_providers(universe_.requirement_dep(id, i))};
      for (std::size_t target : edge.satisfied_by) reach(target, from, dependency);
      solution_.packages[from].dependencies.push_back(std::move(edge));
    }
  }

  void drain() {
    while (!queue_.empty()) {
      const std::size_t from = queue_.front();
      queue_.pop_front();
      visit(from);
    }
  }

  const detail::Universe& universe_;
  const Database& database_;
  Solution solution_;
  std::unordered_map<SolvableId, std::size_t> index_of_;
  std::deque<std::size_t> queue_;
  std::vector<bool> reached_;
};

Solution build_solution(const detail::Universe& universe,
                        const std::vector<SolvableId>& chosen_ids) {
  return SolutionBuilder(universe, chosen_ids).build();
}

}  // namespace
}  // namespace bevenv::solver::detail

namespace bevenv::solver {

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
  return detail::build_solution(universe, solver.transaction().installed_result());
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
