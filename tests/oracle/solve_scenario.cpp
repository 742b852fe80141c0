// Solves one scenario file (tests/unit/solver/scenario.hpp's format) and prints the result on
// stdout: `name version` per chosen package, sorted, or `UNSAT` and the explanation. Used by
// pip_agreement.py to compare bevenv's solver with pip's resolver.
#include <fstream>
#include <iostream>
#include <sstream>

#include "bevenv/solver/solve.hpp"
#include "scenario.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: solve_scenario FILE\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "cannot read `" << argv[1] << "`\n";
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    auto scenario = bevenv::solver::testing::parse_scenario(text.str());
    auto result = bevenv::solver::solve(scenario.database, scenario.request);
    if (const auto* solution = std::get_if<bevenv::solver::Solution>(&result)) {
      for (const auto& p : solution->packages)
        std::cout << p.name << ' ' << p.version.to_string() << '\n';
    } else {
      std::cout << "UNSAT\n";
      for (const auto& line : render_explanation(std::get<bevenv::solver::Unsolvable>(result))) {
        std::cout << line << '\n';
      }
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
  return 0;
}
