// Marker value semantics, canonical printing (packaging's str(Marker)) and target environments.
#include "bevenv/core/marker.hpp"

#include <string>
#include <string_view>

#include "bevenv/core/error.hpp"
#include "marker_node.hpp"

namespace bevenv::core {
namespace {

// packaging prints a value in double quotes, or single quotes when it holds a double quote.
// It refuses values holding both; those are printed as an escaped Python string instead,
// which reads back as the same value.
std::string quote_value(const std::string& value) {
  const bool has_double = value.find('"') != std::string::npos;
  const bool has_single = value.find('\'') != std::string::npos;
  if (!has_double) return "\"" + value + "\"";
  if (!has_single) return "'" + value + "'";
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\0') {
      out += "\\x00";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string format_operand(const MarkerOperand& operand) {
  return operand.is_variable ? operand.text : quote_value(operand.text);
}

// packaging's _format_marker: a group with a single atom is unwrapped without changing
// whether it is the outermost one; nested groups are parenthesised.
std::string format_node(const Marker::Node& node, bool outermost) {
  if (!node.is_group) {
    return format_operand(node.lhs) + " " + node.op + " " + format_operand(node.rhs);
  }
  if (node.atoms.size() == 1) return format_node(node.atoms.front(), outermost);
  std::string inner;
  for (std::size_t i = 0; i < node.atoms.size(); ++i) {
    if (i > 0) inner += node.joins[i - 1] == MarkerJoin::or_ ? " or " : " and ";
    inner += format_node(node.atoms[i], false);
  }
  return outermost ? inner : "(" + inner + ")";
}

// `3.8` from `3.8.18` (and from `3.13.0rc1`).
std::string major_minor(std::string_view full_version) {
  const std::size_t first_dot = full_version.find('.');
  if (first_dot == std::string_view::npos) return std::string(full_version);
  std::size_t end = first_dot + 1;
  while (end < full_version.size() && full_version[end] >= '0' && full_version[end] <= '9') {
    ++end;
  }
  return std::string(full_version.substr(0, end));
}

}  // namespace

Marker::Marker() = default;
Marker::~Marker() = default;
Marker::Marker(std::unique_ptr<Node> root) : root_(std::move(root)) {}
Marker::Marker(const Marker&) = default;
Marker& Marker::operator=(const Marker&) = default;
Marker::Marker(Marker&&) noexcept = default;
Marker& Marker::operator=(Marker&&) noexcept = default;

bool Marker::empty() const { return !root_; }

std::string Marker::to_string() const { return root_ ? format_node(*root_, true) : std::string(); }

MarkerEnvironment MarkerEnvironment::linux_cpython(std::string_view python_full_version,
                                                   std::string_view machine) {
  MarkerEnvironment env;
  const std::string full(python_full_version);
  env.values = {
      {"implementation_name", "cpython"},
      {"implementation_version", full},
      {"os_name", "posix"},
      {"platform_machine", std::string(machine)},
      // A lock targets any Linux kernel, so these host details are unknown, which is what
      // Python's platform module reports as "".
      {"platform_release", ""},
      {"platform_version", ""},
      {"platform_system", "Linux"},
      {"platform_python_implementation", "CPython"},
      {"python_full_version", full},
      {"python_version", major_minor(python_full_version)},
      {"sys_platform", "linux"},
      {"extra", ""},
  };
  return env;
}

}  // namespace bevenv::core
