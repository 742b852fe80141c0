#include "safe_text.hpp"

#include <regex>

#include "bevenv/core/error.hpp"
#include "bevenv/util/text.hpp"

namespace bevenv::containers::detail {
namespace {

using core::Error;
using core::ExitCode;

[[noreturn]] void reject(std::string_view field, std::string_view what, std::string_view text) {
  std::string shown(text.substr(0, 80));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  throw Error(ExitCode::bad_input,
              "lockfile field `" + std::string(field) + "`: " + std::string(what) + ", found `" +
                  shown + "`",
              "re-create the lockfile with `bevenv lock`; bevenv writes nothing into a "
              "Dockerfile that could change its meaning");
}

}  // namespace

std::string dockerfile_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\\' || c == '"' || c == '$') out += '\\';
    out += c;
  }
  return out + "\"";
}

void check_single_line(std::string_view text, std::string_view field) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      reject(field, "expected one line without control characters", text);
    }
  }
}

void check_image_reference(std::string_view text, std::string_view field) {
  // The reference grammar of the distribution spec, lower-case path components.
  static const std::regex pattern(
      R"(^([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*)"
      R"((:[0-9]+)?/)?)"
      R"([a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*)"
      R"((:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[0-9a-f]{64})?$)");
  if (text.size() > 512 || !std::regex_match(text.begin(), text.end(), pattern)) {
    reject(field, "expected an image reference like `nvidia/cuda:11.3.1-devel-ubuntu20.04`", text);
  }
}

void check_image_path(std::string_view text, std::string_view field) {
  static const std::regex pattern(R"(^(/[A-Za-z0-9._+-]+)+/?$|^/$)");
  const bool dots = text.find("/../") != std::string_view::npos || text.ends_with("/..") ||
                    text.find("/./") != std::string_view::npos || text.ends_with("/.");
  if (dots || !std::regex_match(text.begin(), text.end(), pattern)) {
    reject(field, "expected an absolute path of letters, digits and `._+-/`", text);
  }
}

void check_source_url(std::string_view text, std::string_view field) {
  static const std::regex pattern(R"(^((https?|file)://[^\s'"\\]+|/[^\s'"\\]*)$)");
  check_single_line(text, field);
  if (!std::regex_match(text.begin(), text.end(), pattern)) {
    reject(field, "expected an http(s) or file URL, or an absolute path, without spaces", text);
  }
}

void check_command(std::string_view text, std::string_view field) {
  check_single_line(text, field);
  if (text.find_first_not_of(' ') == std::string_view::npos) {
    reject(field, "expected a command", text);
  }
  if (text.ends_with("\\")) reject(field, "expected a command not ending in `\\`", text);
}

bool is_sha256_digest(std::string_view text) {
  static const std::regex pattern("^sha256:[0-9a-f]{64}$");
  return std::regex_match(text.begin(), text.end(), pattern);
}

}  // namespace bevenv::containers::detail
