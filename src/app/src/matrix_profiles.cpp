#include "bevenv/app/matrix_commands.hpp"
#include "bevenv/core/error.hpp"

namespace bevenv::app {
namespace {

std::vector<std::string> ports_of(const matrix::Matrix& m, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& [other, profile] : m.profiles) {
    if (profile.port_of == name) out.push_back(other);
  }
  return out;
}

void add_list(CommandOutput& out, const std::string& title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  out.add(title, Mark::none, 1);
  for (const auto& item : items) out.add(item, Mark::none, 2);
}

nlohmann::json no_ports_json(const matrix::Profile& profile) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& entry : profile.no_ports) {
    out.push_back({{"gpus", entry.gpus}, {"reason", entry.reason}, {"sources", entry.sources}});
  }
  return out;
}

CommandOutput one_profile(const matrix::Matrix& m, const matrix::Profile& profile) {
  CommandOutput out;
  out.add(profile.name + ": " + profile.summary);
  if (!profile.port_of.empty()) out.add("ports `" + profile.port_of + "`", Mark::none, 1);
  const std::vector<std::string> ports = ports_of(m, profile.name);
  if (!ports.empty()) out.add("ported by " + quoted_list(ports), Mark::none, 1);
  std::vector<std::string> pins, preferred;
  for (const auto& r : profile.requirements) pins.push_back(r.to_string());
  for (const auto& r : profile.preferred) preferred.push_back(r.to_string());
  out.add(
      "python " + profile.python + (profile.cuda.empty() ? "" : ", official CUDA " + profile.cuda),
      Mark::none, 1);
  add_list(out, "requires:", pins);
  add_list(out, "prefers (the official point):", preferred);
  add_list(out, "changes from `" + profile.port_of + "`:", profile.changes);
  add_list(out, "caveats:", profile.caveats);
  if (!profile.lifts.empty()) out.add("lifts rules " + quoted_list(profile.lifts), Mark::none, 1);
  for (const auto& entry : profile.no_ports) {
    out.add("no known port to " + quoted_list(entry.gpus) + ": " + entry.reason, Mark::none, 1);
  }
  add_list(out, "sources:", profile.sources);
  out.json = {{"name", profile.name},       {"summary", profile.summary},
              {"python", profile.python},   {"cuda", profile.cuda},
              {"requires", pins},           {"prefer", preferred},
              {"port_of", profile.port_of}, {"ported_by", ports},
              {"changes", profile.changes}, {"caveats", profile.caveats},
              {"lifts", profile.lifts},     {"no_port", no_ports_json(profile)},
              {"sources", profile.sources}};
  return out;
}

}  // namespace

CommandOutput matrix_profiles(const MatrixProfilesOptions& options) {
  const matrix::Matrix m = load_matrix_or_throw(options.matrix);
  if (!options.profile.empty()) {
    return one_profile(m, profile_or_throw(m, options.profile));
  }
  CommandOutput out;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, profile] : m.profiles) {
    const std::string port = profile.port_of.empty() ? "" : " (ports `" + profile.port_of + "`)";
    out.add("`" + name + "`" + port + ": " + profile.summary);
    list.push_back({{"name", name}, {"summary", profile.summary}, {"port_of", profile.port_of}});
  }
  out.json = {{"profiles", list}};
  return out;
}

}  // namespace bevenv::app
