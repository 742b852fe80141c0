// Offline locks leave out the releases a newer release stands for (matrix/src/stand_ins.hpp,
// src/app/src/lock_stand_ins.hpp) because the solver, which merges alike versions, would drop
// their records. This checks that claim where it matters: every shipped profile, on targets of
// three GPU generations, solves to the same packages, the same versions and the same reasons
// with those releases left out as with every release a record.
#include <catch2/catch.hpp>
#include <string>
#include <variant>
#include <vector>

#include "bevenv/matrix/loader.hpp"
#include "lock_extras.hpp"
#include "lock_inputs.hpp"
#include "lock_translate.hpp"

using namespace bevenv;

namespace {

struct Solved {
  std::size_t records = 0;
  std::vector<std::string> packages;  // `name version <- who requires it`, or the explanation
};

Solved solve(const app::LockInputs& inputs, bool leave_stand_ins_out) {
  const std::vector<solver::Preference> later;
  app::Translation translation =
      app::translate(inputs, app::requested_extras(inputs), app::RecordScope::installable,
                     leave_stand_ins_out ? &later : nullptr);
  app::add_extra_records(translation, inputs);
  app::merge_alike_versions(translation);
  Solved out;
  out.records = translation.database.records().size();
  const auto result = app::solve_with_preferences(translation, inputs);
  const auto* solution = std::get_if<solver::Solution>(&result);
  if (solution == nullptr) {
    out.packages.push_back("unsolvable");
    return out;
  }
  for (const auto& chosen : solution->packages) {
    std::string line = chosen.name + " " + chosen.version.to_string() + " <-";
    for (const auto& link : chosen.required_by)
      line += " " + std::string(link.dependency.origin.view());
    out.packages.push_back(std::move(line));
  }
  return out;
}

}  // namespace

TEST_CASE("leaving stood-for releases out changes no profile's solution", "[stand-ins]") {
  const auto matrix = matrix::load_embedded();
  REQUIRE(matrix.has_value());
  std::size_t fewer = 0;
  for (const auto& [name, profile] : matrix->profiles) {
    for (const auto& [gpu, driver] :
         {std::pair{"sm_86", "12.8"}, std::pair{"sm_70", "11.4"}, std::pair{"sm_120", "12.8"}}) {
      INFO(name << " on " << gpu << ", CUDA driver " << driver);
      app::LockOptions options;
      options.profile = name;
      options.target.gpus = {gpu};
      options.target.cuda_driver = driver;
      options.target.detect = false;
      const app::LockInputs inputs = app::gather_lock_inputs(options);
      const Solved all = solve(inputs, false);
      const Solved merged = solve(inputs, true);
      CHECK(merged.packages == all.packages);
      CHECK(merged.records <= all.records);
      if (merged.records < all.records) ++fewer;
    }
  }
  // Most cases have releases stood for: the check above is not vacuous.
  CHECK(fewer * 2 > matrix->profiles.size() * 3);
}
