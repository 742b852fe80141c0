// Differential fuzzing of the matrix TOML reader: the fast reader for plain generated
// `[[package]]` files (matrix/src/plain_packages.cpp) against the toml++ path on the same bytes.
// When the fast reader takes a file, toml++ must take it too, without a diagnostic, and give
// the same records field by field (origins included); when it gives up it adds nothing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "bevenv/core/toml_nesting.hpp"
#include "fuzz_check.hpp"
#include "plain_packages.hpp"
#include "sections.hpp"
#include "toml_reader.hpp"

using bevenv::fuzz::require;
namespace matrix = bevenv::matrix;
namespace detail = bevenv::matrix::detail;

namespace {

std::string describe(const matrix::PackageVersion& p) {
  std::string out =
      p.name + " " + p.version.to_string() + " published=" + std::to_string(p.local_is_published) +
      " python=" + p.python.to_string() + " cuda=" + (p.cuda ? p.cuda->to_string() : "-") +
      " build=" + std::string(matrix::build_kind_name(p.build)) +
      " step=" + std::to_string(p.build_step.has_value()) +
      " complete=" + std::to_string(p.deps_complete) + " index=" + p.index_url +
      " links=" + p.find_links + " url=" + p.artifact_url + " sha=" + p.sha256 + " note=" + p.note +
      " origin=" + p.origin.to_string() +
      " generated=" + (p.generated ? p.generated->index + "@" + p.generated->read : "-") + " req:";
  for (const auto& r : p.requirements) out += " [" + r.name + "] " + r.to_string() + ";";
  out += " sass:";
  for (const auto& s : p.sass) out += " " + s;
  out += " ptx:";
  for (const auto& s : p.ptx) out += " " + s;
  out += " sources:";
  for (const auto& s : p.sources) out += " " + s;
  out += " artifacts:";
  for (const auto& a : p.artifacts) {
    out += " " + a.filename + "|" + a.url + "|" + a.sha256 + "|" +
           (a.size ? std::to_string(*a.size) : "-");
  }
  return out + "\n";
}

std::string describe(detail::Collected& collected) {
  std::string out;
  for (const auto& [name, records] : collected.packages.by_name()) {
    out += "package " + name + "\n";
    for (const auto& version : records.versions) out += describe(version);
  }
  return out;
}

// The toml++ path of load.cpp for a file that is only `[[package]]` tables; false when toml++
// refuses it or reports anything.
bool read_full(const matrix::SourceFile& source, detail::Collected& out, std::string& why) {
  std::vector<matrix::Diagnostic> diagnostics;
  const detail::FileContext file{source.path, source.layer, &diagnostics};
  toml::table document;
  try {
    document = toml::parse(source.text);
  } catch (const toml::parse_error& error) {
    why = std::string(error.description());
    return false;
  }
  for (const auto& [key, node] : document) {
    if (key.str() != "package") {
      why = "a top-level key other than `package`: " + std::string(key.str());
      return false;
    }
    detail::read_packages(node, file, source.layer_index, out);
  }
  for (const auto& d : diagnostics) why += d.to_string() + "\n";
  return diagnostics.empty();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const matrix::SourceFile source{"o/fuzz.toml",
                                  std::string(reinterpret_cast<const char*>(data), size), 1,
                                  matrix::Layer::overlay};
  // load.cpp refuses deep nesting before either reader sees the file.
  if (bevenv::core::check_toml_nesting(source.text)) return 0;
  try {
    detail::Collected fast;
    if (!detail::read_plain_packages(source, fast)) {
      require(fast.packages.by_name().empty(), "the fast reader gave up after adding records");
      return 0;
    }
    detail::Collected full;
    std::string why;
    if (!read_full(source, full, why)) {
      std::fprintf(stderr, "toml++: %s\n", why.c_str());
      require(false, "the fast reader took a file that toml++ refuses or reports");
    }
    const std::string a = describe(fast);
    const std::string b = describe(full);
    if (a != b) std::fprintf(stderr, "fast:\n%s\ntoml++:\n%s\n", a.c_str(), b.c_str());
    require(a == b, "the fast reader and toml++ read different records");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "exception: %s\n", error.what());
    require(false, "an exception escaped a matrix reader");
  }
  return 0;
}
