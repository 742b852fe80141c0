#pragma once
// `bevenv why PACKAGE`, answered from the lockfile alone.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/lockfiles/model.hpp"

namespace bevenv::lockfiles {

struct ExplainLine {
  int indent = 0;  // levels of two spaces
  std::string text;
  bool operator==(const ExplainLine&) const = default;
};

struct PackageNotFound {
  std::string message;                    // "`setuptool` is not in the lockfile"
  std::string hint;                       // "did you mean `setuptools`? ..."
  std::optional<std::string> suggestion;  // `setuptools`, when a name is close
};

// The pinned version and the recorded reasons, in order: who requested or required it, the
// rules that held it (with the failure's symptom and source), preferences and observations;
// then the packages that depend on it and where it comes from.
core::Expected<std::vector<ExplainLine>, PackageNotFound> explain_package(const Lockfile& lock,
                                                                          std::string_view name);

// The lines as text, two spaces per indent level, each ending in a newline.
std::string to_text(const std::vector<ExplainLine>& lines);

}  // namespace bevenv::lockfiles
