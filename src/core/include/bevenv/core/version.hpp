#pragma once
// PEP 440 versions: parsing (with the spec's normalizations), canonical text and total order.
#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bevenv/core/error.hpp"
#include "bevenv/core/expected.hpp"

namespace bevenv::core {

enum class PreKind : std::uint8_t { alpha, beta, rc };

struct PreRelease {
  PreKind kind = PreKind::alpha;
  std::uint64_t number = 0;
  auto operator<=>(const PreRelease&) const = default;
};

// One dot-separated segment of a local version (`cu113`, `7`): numbers sort above strings.
using LocalSegment = std::variant<std::uint64_t, std::string>;

// What a version is made of, as the scanner finds it (pep440_scan.hpp) and a Version keeps it.
struct VersionParts {
  std::uint64_t epoch = 0;
  std::vector<std::uint64_t> release;
  std::optional<PreRelease> pre;
  std::optional<std::uint64_t> post;
  std::optional<std::uint64_t> dev;
  std::vector<LocalSegment> local;
};

class Version {
 public:
  // Parses any text PEP 440 accepts (leading `v`, `-`/`_` separators, `alpha`/`c`/`pre`/`rev`
  // spellings, implicit numbers, surrounding whitespace). Numbers beyond 2^64-1 are an error.
  static Expected<Version, ParseError> parse(std::string_view text);
  // The version of parts a parse found, kept by a form bevenv writes itself (the matrix image):
  // no text is scanned, and the parts are taken as they are.
  static Version from_parts(VersionParts parts) { return made(std::move(parts)); }

  std::uint64_t epoch() const { return parts().epoch; }
  const std::vector<std::uint64_t>& release() const { return parts().release; }
  const std::optional<PreRelease>& pre() const { return parts().pre; }
  const std::optional<std::uint64_t>& post() const { return parts().post; }
  const std::optional<std::uint64_t>& dev() const { return parts().dev; }
  const std::vector<LocalSegment>& local() const { return parts().local; }

  bool is_prerelease() const { return pre().has_value() || dev().has_value(); }
  bool is_postrelease() const { return post().has_value(); }
  bool is_devrelease() const { return dev().has_value(); }
  bool has_local() const { return !local().empty(); }

  // Canonical text, as packaging's str(Version(...)) prints it: `1!2.0rc1.post2.dev3+cu113`.
  std::string to_string() const;
  // The same without the local part (`1.10.1` for `1.10.1+cu113`).
  std::string public_string() const;
  std::string local_string() const;  // `cu113`, empty when none
  Version without_local() const;
  // The release part only, e.g. `1.10.1` for `1.10.1rc1.post2+cu113`.
  Version base_version() const;

  // PEP 440 total order (trailing zeros of the release are insignificant: 2.0 == 2.0.0).
  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) { return (a <=> b) == 0; }

 private:
  using Parts = VersionParts;
  // The parts and the canonical text they make, written once when the version is made: a lock
  // asks the text of thousands of versions, many of them several times.
  struct Made {
    Parts parts;
    std::string text;               // `1.10.1+cu113`
    std::size_t public_length = 0;  // `1.10.1`
  };
  static Version made(Parts parts);
  static const Parts kNone;  // what a default-constructed version holds
  const Parts& parts() const { return made_ ? made_->parts : kNone; }

  // Shared and never changed once made: a version is copied into every record, requirement
  // and specifier that names it, and a copy costs no allocation.
  std::shared_ptr<const Made> made_;
};

}  // namespace bevenv::core
