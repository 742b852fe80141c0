#pragma once
// What several fuzz targets check or need alike. A failed invariant: say which and crash so
// that libFuzzer keeps the input.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace bevenv::fuzz {

inline void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

// A parse error of a PEP 508 text (a marker, a requirement) points at a character of it, or at
// column 1 of an empty text.
inline void require_column_in_text(std::size_t column, std::size_t size) {
  require(column >= 1 && column <= (size == 0 ? 1 : size), "error column in text");
}

// packaging prints marker values as they are, so printed text holding a backslash or a line
// break in a value does not read back as itself (in packaging either); such texts are not
// checked for a round trip.
inline bool marker_values_read_back(std::string_view printed) {
  return printed.find_first_of(std::string_view("\\\n\r\0", 4)) == std::string_view::npos;
}

// A new directory `bevenv-fuzz-NAME-XXXXXX` under the temporary directory, for targets whose
// input has to be a file.
inline std::filesystem::path temp_directory(std::string_view name) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("bevenv-fuzz-" + std::string(name) + "-XXXXXX"))
          .string();
  require(::mkdtemp(pattern.data()) != nullptr, "a temporary directory");
  return pattern;
}

}  // namespace bevenv::fuzz
