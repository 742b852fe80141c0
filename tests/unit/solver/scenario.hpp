#pragma once
// A small text format for solver scenarios, used by the tests and the golden files:
//
//   package torch 2.0.1+cu118 [system] [preferred] [disfavored]
//     requires __cuda >=11.8 | origin text
//     conflicts numpy <1.20 | origin text
//     provides __sm 8.6
//   want torch ==2.0.1 | profile uniad          (a root requirement; origin optional)
//   conflict mmcv-full >=1.3,<1.5 with torch >=2 | rule `mmcv-wheels`
//   forbid yapf ==0.40.2 | rule `yapf-verify`
//   prefer numpy ==1.24.4
//   disfavor numpy >=2
//   allow-prereleases [name]
//
// `#` starts a comment line. Specifiers have no spaces; an empty specifier means any version.
#include <string>

#include "bevenv/solver/database.hpp"
#include "bevenv/solver/request.hpp"

namespace bevenv::solver::testing {

struct Scenario {
  Database database;
  Request request;
};

// Throws std::runtime_error naming the line on bad input.
Scenario parse_scenario(const std::string& text);

}  // namespace bevenv::solver::testing
