#pragma once
// The PEP 440 version grammar as packaging's regular expressions apply it. Their quantifiers
// are possessive and each optional part is atomic, so a single greedy pass without
// backtracking accepts exactly the same strings; the scanners below follow that pass part by
// part so that Version and Specifier can share it and report where it stopped.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "bevenv/core/version.hpp"
#include "pep440_text.hpp"

namespace bevenv::core::pep440 {

// The parts found so far and where the scan stands.
struct VersionScan : VersionParts {
  std::size_t begin = 0;        // first character of the version (its `v`, if any)
  std::size_t release_end = 0;  // just past the last release number
  std::size_t end = 0;          // just past everything scanned so far
};

// `v? (N!)? N(.N)*` at `pos`. Fails when no release number is there.
std::optional<ErrorAt> scan_release(std::string_view text, std::size_t pos, VersionScan& out);
// The optional pre-, post- and dev-release parts, from `out.end`.
std::optional<ErrorAt> scan_suffixes(std::string_view text, VersionScan& out);
// An optional `+label`, from `out.end`. A `+` without a valid label is left unconsumed.
std::optional<ErrorAt> scan_local(std::string_view text, VersionScan& out);

// Whether a `.*` wildcard starts at `pos`.
inline bool wildcard_at(std::string_view text, std::size_t pos) {
  return pos + 1 < text.size() && text[pos] == '.' && text[pos + 1] == '*';
}

// Message for text left over after a version that ends at `scan.end`.
ErrorAt leftover_error(std::string_view text, const VersionScan& scan);

}  // namespace bevenv::core::pep440
