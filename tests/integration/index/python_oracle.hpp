#pragma once
// Python's zipfile, hashlib and packaging as the oracle for what bevenv reads from wheels and
// files: the index integration tests compare with these, never with bevenv's own code.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "bevenv/core/subprocess.hpp"

namespace bevenv::test {

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A wheel's sha256, then packaging's canonical form of each Requires-Dist, one per line.
inline std::vector<std::string> python_wheel_facts(const std::filesystem::path& wheel) {
  const auto result = core::run_process(
      {"python3", "-c",
       "import sys, zipfile, hashlib, email.parser\n"
       "from packaging.requirements import Requirement\n"
       "z = zipfile.ZipFile(sys.argv[1])\n"
       "name = [n for n in z.namelist() if n.endswith('.dist-info/METADATA')][0]\n"
       "m = email.parser.Parser().parsestr(z.read(name).decode())\n"
       "print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())\n"
       "for r in m.get_all('Requires-Dist') or []: print(Requirement(r))\n",
       wheel.string()});
  REQUIRE(result.exit_code == 0);
  return lines_of(result.out);
}

inline std::string python_sha256(const std::filesystem::path& file) {
  const auto result = core::run_process(
      {"python3", "-c",
       "import sys, hashlib; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())",
       file.string()});
  REQUIRE(result.exit_code == 0);
  return lines_of(result.out).at(0);
}

}  // namespace bevenv::test
