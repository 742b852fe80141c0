#pragma once
// Fields of JSON that another process sent: a peer rank's hello and report. nlohmann's
// `value()` throws type_error when a field holds another type, and `operator[]` on a const
// object asserts when the key is absent; one malformed report would then end rank 0 without
// the aggregate. These read a missing or mistyped field as absent instead.
#include <string>

#include "probe_tool.hpp"

namespace bevenv::probe_tool {

// `object[key]` when `object` is an object holding `key` with the type of `fallback` (any number
// for a number, anything for null); `fallback` otherwise.
inline json peer_field(const json& object, const char* key, const json& fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  const bool same_type = fallback.is_null() || it->type() == fallback.type() ||
                         (it->is_number() && fallback.is_number());
  return same_type ? *it : fallback;
}

inline std::string peer_text(const json& object, const char* key,
                             const std::string& fallback = "") {
  const json value = peer_field(object, key, json(nullptr));
  return value.is_string() ? value.get<std::string>() : fallback;
}

inline double peer_number(const json& object, const char* key, double fallback) {
  const json value = peer_field(object, key, json(nullptr));
  return value.is_number() ? value.get<double>() : fallback;
}

}  // namespace bevenv::probe_tool
