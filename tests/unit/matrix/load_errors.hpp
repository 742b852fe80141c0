#pragma once
// What the loader tests share: the diagnostics a broken matrix loads to.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "bevenv/matrix/loader.hpp"

namespace bevenv::matrix::testing {

// Every diagnostic of loading `files`, as the CLI prints it; the test stops where they load.
inline std::vector<std::string> load_errors(const std::vector<SourceFile>& files) {
  const auto result = load_sources(files);
  REQUIRE_FALSE(result.has_value());
  std::vector<std::string> out;
  for (const auto& d : result.error()) out.push_back(d.to_string());
  return out;
}

}  // namespace bevenv::matrix::testing
