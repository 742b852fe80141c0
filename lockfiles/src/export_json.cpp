#include "bevenv/lockfiles/export.hpp"

namespace bevenv::lockfiles {
namespace {

using Json = nlohmann::ordered_json;

template <class T>
Json optional(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json string_map(const std::map<std::string, std::string>& map) {
  Json out = Json::object();
  for (const auto& [key, value] : map) out[key] = value;
  return out;
}

Json artifact_json(const Artifact& a) {
  return Json{{"filename", a.filename},
              {"url", a.url},
              {"sha256", optional(a.sha256)},
              {"size", optional(a.size)}};
}

Json package_json(const Package& p) {
  Json artifacts = Json::array();
  for (const Artifact& a : p.artifacts) artifacts.push_back(artifact_json(a));
  Json why = Json::array();
  for (const Reason& r : p.why)
    why.push_back(Json{{"kind", to_string(r.kind)},
                       {"text", r.text},
                       {"package", optional(r.package)},
                       {"rule_id", optional(r.rule_id)},
                       {"source", optional(r.source)}});
  return Json{{"name", p.name},
              {"version", p.version},
              {"variant", p.variant},
              {"source", Json{{"kind", to_string(p.source.kind)}, {"url", p.source.url}}},
              {"markers", optional(p.markers)},
              {"dependencies", p.dependencies},
              {"artifacts", artifacts},
              {"why", why}};
}

}  // namespace

nlohmann::ordered_json to_json(const Lockfile& model) {
  const Lockfile lock = canonical(model);
  Json packages = Json::array();
  for (const Package& p : lock.packages) packages.push_back(package_json(p));
  Json builds = Json::array();
  for (const BuildStep& b : lock.builds)
    builds.push_back(Json{{"name", b.name},
                          {"after", b.after},
                          {"package", b.package.empty() ? Json() : Json(b.package)},
                          {"source", b.source ? artifact_json(*b.source) : Json()},
                          {"vcs", optional(b.vcs)},
                          {"working_dir", optional(b.working_dir)},
                          {"cuda_arch_list", b.cuda_arch_list},
                          {"commands", b.commands},
                          {"env", string_map(b.env)}});
  Json rules = Json::array();
  for (const AppliedRule& r : lock.rules_applied)
    rules.push_back(Json{{"id", r.id},
                         {"failure", r.failure},
                         {"effect", r.effect},
                         {"symptom", optional(r.symptom)},
                         {"source", r.source}});
  const Target& t = lock.target;
  const Environment& e = lock.environment;
  return Json{
      {"schema_version", lock.schema_version},
      {"generator", lock.generator},
      {"matrix_version", lock.matrix_version},
      {"input_hash", lock.input_hash},
      {"profile", lock.profile},
      {"target", Json{{"python", t.python},
                      {"platform", t.platform},
                      {"glibc", t.glibc},
                      {"cuda_driver", t.cuda_driver},
                      {"gpus", t.gpus}}},
      {"environment", Json{{"cuda", e.cuda},
                           {"base_image", Json{{"tag", e.base_image.tag},
                                               {"digest", optional(e.base_image.digest)}}},
                           {"torch_cuda_arch_list", e.torch_cuda_arch_list},
                           {"variables", string_map(e.variables)}}},
      {"packages", packages},
      {"builds", builds},
      {"rules", rules},
  };
}

std::string export_json(const Lockfile& lock) {
  // Models built in code may hold bytes that are not UTF-8; show them as U+FFFD, do not throw.
  return to_json(lock).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace bevenv::lockfiles
