// Marker evaluation with packaging's semantics (markers.py: _evaluate_markers and _eval_op).
#include <algorithm>
#include <string>
#include <string_view>

#include "bevenv/core/error.hpp"
#include "bevenv/core/marker.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/core/specifier.hpp"
#include "bevenv/core/version.hpp"
#include "bevenv/util/text.hpp"
#include "marker_node.hpp"
#include "pep508_scan.hpp"

namespace bevenv::core {
namespace {

// Variables whose comparisons are PEP 440 version comparisons when the literal is a version.
bool is_version_variable(std::string_view key) {
  return key == "implementation_version" || key == "platform_release" ||
         key == "python_full_version" || key == "python_version";
}

std::string describe(const Marker::Node& item) {
  auto show = [](const MarkerOperand& operand) {
    return operand.is_variable ? operand.text : "\"" + operand.text + "\"";
  };
  return "`" + show(item.lhs) + " " + item.op + " " + show(item.rhs) + "`";
}

Expected<std::string, std::string> lookup(const MarkerEnvironment& env, const std::string& key) {
  const auto found = env.values.find(key);
  if (key == "extra") {
    // As in packaging's "metadata" context: no extra is the empty string, and the selected
    // extra is compared in its normalized form (PEP 685).
    if (found == env.values.end() || found->second.empty()) return std::string();
    return normalize_name(found->second);
  }
  if (key == "extras" || key == "dependency_groups") {
    return unexpected("marker variable `" + key +
                      "` is only defined for lock files (PEP 751), not for a requirement");
  }
  if (found == env.values.end()) {
    return unexpected("the marker environment has no value for `" + key + "`");
  }
  if (key == "python_full_version" && !found->second.empty() && found->second.back() == '+') {
    // Untagged CPython builds report `3.11.4+`, which is not PEP 440; packaging repairs it.
    return found->second + "local";
  }
  return found->second;
}

// `lhs op rhs` where `key` names the environment variable involved (on either side).
Expected<bool, std::string> compare(const std::string& lhs, const std::string& op,
                                    const std::string& rhs, const std::string& key,
                                    const Marker::Node& item) {
  if (is_version_variable(key) && pep508::is_specifier_text(op + rhs)) {
    if (op == "===") {
      return util::ascii_lower(lhs) == util::ascii_lower(pep508::strip_python_spaces(rhs));
    }
    auto specifier = Specifier::parse(pep508::strip_python_spaces(op + rhs));
    if (!specifier) {
      return unexpected("cannot read " + describe(item) +
                        " as a version comparison: " + specifier.error().to_string());
    }
    auto version = Version::parse(lhs);
    // A value that is not a version never matches a version specifier.
    return version.has_value() && specifier->matches(version.value());
  }
  if (op == "in") return rhs.find(lhs) != std::string::npos;
  if (op == "not in") return rhs.find(lhs) == std::string::npos;
  // packaging's string fallback: only equality is defined, `<` and `>` are never true.
  if (op == "==" || op == "<=" || op == ">=") return lhs == rhs;
  if (op == "!=") return lhs != rhs;
  if (op == "<" || op == ">") return false;
  return unexpected("cannot evaluate " + describe(item) + ": `" + op +
                    "` needs versions on both sides, got `" + lhs + "` and `" + rhs + "`");
}

Expected<bool, std::string> evaluate_comparison(const Marker::Node& item,
                                                const MarkerEnvironment& env) {
  // Like packaging: a variable on the left is looked up and the right side is taken as text
  // (even when it is a variable too); otherwise the right side names the variable.
  const std::string& key = item.lhs.is_variable ? item.lhs.text : item.rhs.text;
  auto env_value = lookup(env, key);
  if (!env_value) return unexpected(env_value.error());
  if (item.lhs.is_variable) return compare(env_value.value(), item.op, item.rhs.text, key, item);
  return compare(item.lhs.text, item.op, env_value.value(), key, item);
}

// packaging evaluates every atom (no short-circuit), so an unknown variable is an error even
// where the result would not depend on it.
Expected<bool, std::string> evaluate_node(const Marker::Node& node, const MarkerEnvironment& env) {
  if (!node.is_group) return evaluate_comparison(node, env);
  bool any_group = false;
  bool current_group = true;
  for (std::size_t i = 0; i < node.atoms.size(); ++i) {
    if (i > 0 && node.joins[i - 1] == MarkerJoin::or_) {
      any_group = any_group || current_group;
      current_group = true;
    }
    auto result = evaluate_node(node.atoms[i], env);
    if (!result) return result;
    current_group = current_group && result.value();
  }
  return any_group || current_group;
}

}  // namespace

Expected<bool, std::string> Marker::evaluate(const MarkerEnvironment& env) const {
  if (!root_) return true;
  return evaluate_node(*root_, env);
}

}  // namespace bevenv::core
