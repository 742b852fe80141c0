#pragma once
// PEP 508 environment markers: parse, evaluate against a target, print canonically.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bevenv/core/error.hpp"
#include "bevenv/core/expected.hpp"

namespace bevenv::core {

// Values of the PEP 508 marker variables for one target. Missing keys evaluate as an error
// (packaging raises UndefinedEnvironmentName); `extra` defaults to "".
struct MarkerEnvironment {
  std::map<std::string, std::string, std::less<>> values;

  // A Linux CPython target such as bevenv locks for: `python_version` "3.8",
  // `python_full_version` "3.8.18", `sys_platform` "linux", `platform_machine` "x86_64", ...
  static MarkerEnvironment linux_cpython(std::string_view python_full_version,
                                         std::string_view machine = "x86_64");
};

class Marker {
 public:
  Marker();  // the empty marker: always true
  ~Marker();
  Marker(const Marker&);
  Marker& operator=(const Marker&);
  Marker(Marker&&) noexcept;
  Marker& operator=(Marker&&) noexcept;

  static Expected<Marker, ParseError> parse(std::string_view text);

  bool empty() const;
  // Evaluates as packaging does: version comparison where both sides parse as PEP 440
  // versions (for the version-valued variables), string comparison otherwise; `in`/`not in`
  // as substring tests. Returns an error naming an unknown variable or an invalid comparison.
  Expected<bool, std::string> evaluate(const MarkerEnvironment& env) const;
  std::string to_string() const;  // canonical: `python_version < "3.9" and extra == "cuda"`
  // The same for every copy of one parse (null for the empty marker): what a cache of results
  // keys on, holding a copy so that the parse outlives it.
  const void* identity() const { return root_.get(); }

  struct Node;

 private:
  explicit Marker(std::unique_ptr<Node> root);
  // Shared and never changed once parsed: a requirement's marker is copied with it into every
  // record that carries the requirement, and a copy costs no allocation.
  std::shared_ptr<const Node> root_;
};

}  // namespace bevenv::core
