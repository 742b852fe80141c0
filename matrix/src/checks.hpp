#pragma once
// Checks across records, after layers are merged: dangling references, requirements no
// version satisfies, rules that can never apply, profile cycles.
#include <map>
#include <string>
#include <vector>

#include "bevenv/matrix/diagnostic.hpp"
#include "bevenv/matrix/model.hpp"
#include "sections.hpp"

namespace bevenv::matrix::detail {

// `known_only`: a requirement must name a package of the matrix (false while `bevenv matrix
// snapshot` reads the names the generated layer lacks).
void check_packages(const Matrix& matrix, std::vector<Diagnostic>& diagnostics, bool known_only);
void check_rules(const Matrix& matrix, std::vector<Diagnostic>& diagnostics, bool known_only);
void resolve_profiles(std::map<std::string, RawProfile, std::less<>>& raw, Matrix& out,
                      std::vector<Diagnostic>& diagnostics);
void check_profiles(const Matrix& matrix, std::vector<Diagnostic>& diagnostics);
void check_observed(const Matrix& matrix, std::vector<Diagnostic>& diagnostics);
// Failures against rules: `prevented_by` names rules, a rule's `failure` names a failure, and a
// rule that leaves its `fix` to its failure gets the failure's first fix.
void check_failures(Matrix& matrix, std::vector<Diagnostic>& diagnostics);

void report(std::vector<Diagnostic>& diagnostics, const Origin& at, std::string message);
// Empty when the requirement names a package with a matching version; else why not.
std::string unmet_reason(const Matrix& matrix, const core::Requirement& requirement);

}  // namespace bevenv::matrix::detail
