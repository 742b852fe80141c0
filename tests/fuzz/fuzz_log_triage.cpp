// libFuzzer target: any bytes given to `bevenv doctor --log` are refused as binary or scanned
// for known failures without crashing; every match points at a line that exists.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "bevenv/app/doctor.hpp"
#include "bevenv/core/text_input.hpp"
#include "fuzz_check.hpp"

namespace {

bevenv::matrix::Rule rule(const char* id, const char* symptom) {
  bevenv::matrix::Rule out;
  out.id = id;
  out.symptom = symptom;
  out.message = "a known-bad combination";
  out.fix = "pin the fix";
  return out;
}

bevenv::matrix::Failure failure(const char* id, const char* literal, const char* regex) {
  bevenv::matrix::Failure out;
  out.id = id;
  out.cause = "a known failure";
  out.patterns.push_back({literal, regex});
  out.fixes.push_back({{}, "the fix"});
  return out;
}

// Failures and rules as matrix/data writes them (a literal with a regex, a regex alone, a
// symptom with a `...` gap), so that every matcher runs; built in memory to keep the matrix
// loader out of the fuzz build.
const bevenv::matrix::Matrix* matrix() {
  static const bevenv::matrix::Matrix built = [] {
    bevenv::matrix::Matrix m;
    m.failures.push_back(failure("F12", "is killed by signal: Bus error",
                                 R"(DataLoader worker \(pid [0-9]+\) is killed by signal)"));
    m.failures.push_back(failure("F6", "", R"(No such file or directory: '[^']*\.pkl')"));
    m.failures.push_back(failure("F8", "CUDA out of memory", ""));
    m.rules.push_back(rule("distutils", "AttributeError: module 'distutils' has no attribute"));
    m.rules.push_back(
        rule("yapf-verify", "TypeError: FormatCode() got ... unexpected keyword argument"));
    return m;
  }();
  return &built;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);  // NOLINT
  std::istringstream stream(text);
  const std::string read = bevenv::core::read_stream(stream, "standard input", "");
  bevenv::fuzz::require(read == text, "read_stream returns what it was given");
  if (const auto offset = bevenv::core::binary_offset(text)) {
    bevenv::fuzz::require(*offset < size, "binary data starts inside the text");
    return 0;
  }
  std::istringstream in(text);
  std::size_t lines = 0;
  const auto matches = bevenv::app::scan_log(in, matrix(), &lines);
  for (const auto& match : matches) {
    bevenv::fuzz::require(match.line >= 1 && match.line <= lines, "a match names a real line");
    bevenv::fuzz::require(match.text.size() <= 203, "a match's text is shortened");
    std::size_t previous = match.line;
    for (const std::size_t line : match.more_lines) {
      bevenv::fuzz::require(line > previous && line <= lines, "later lines come later");
      previous = line;
    }
  }
  return 0;
}
