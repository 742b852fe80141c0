#include "bevenv/core/specifier.hpp"

#include <array>
#include <string>

#include "pep440_order.hpp"
#include "pep440_scan.hpp"

namespace bevenv::core {
namespace {

using pep440::ErrorAt;

struct OperatorSpelling {
  std::string_view text;
  Operator op;
};

// `===` must be tried before `==`, and two-character operators before `<` and `>`.
constexpr std::array<OperatorSpelling, 8> kOperators{{{"===", Operator::arbitrary},
                                                      {"==", Operator::equal},
                                                      {"!=", Operator::not_equal},
                                                      {"~=", Operator::compatible},
                                                      {"<=", Operator::less_equal},
                                                      {">=", Operator::greater_equal},
                                                      {"<", Operator::less},
                                                      {">", Operator::greater}}};

std::string quoted(std::string_view text) { return "`" + std::string(text) + "`"; }

// `[^\s;)]+`: what packaging takes as the string of `===`.
std::size_t arbitrary_end(std::string_view text, std::size_t pos) {
  while (pos < text.size() && text[pos] != ';' && text[pos] != ')' &&
         pep440::space_length(text, pos) == 0) {
    ++pos;
  }
  return pos;
}

bool allows_local_and_wildcard(Operator op) {
  return op == Operator::equal || op == Operator::not_equal;
}

// Checks what follows the release of a non-`===` specifier, packaging's per-operator rules.
std::optional<ErrorAt> scan_operator_version(std::string_view text, Operator op,
                                             pep440::VersionScan& scan, bool& wildcard) {
  const std::string_view op_text = operator_text(op);
  if (op == Operator::compatible && scan.release.size() < 2) {
    return ErrorAt{"`~=` needs a version with at least two release numbers, e.g. `~=" +
                       std::string(text.substr(scan.begin, scan.end - scan.begin)) + ".0`",
                   scan.begin};
  }
  if (pep440::wildcard_at(text, scan.end)) {
    if (!allows_local_and_wildcard(op)) {
      return ErrorAt{
          "a `.*` wildcard is only allowed with `==` and `!=`, not with " + quoted(op_text),
          scan.end};
    }
    wildcard = true;
    scan.end += 2;
    return std::nullopt;
  }
  if (auto error = pep440::scan_suffixes(text, scan)) return error;
  if (pep440::wildcard_at(text, scan.end)) {
    return ErrorAt{"a `.*` wildcard must follow the release numbers directly (e.g. `==1.4.*`)",
                   scan.end};
  }
  if (allows_local_and_wildcard(op)) return pep440::scan_local(text, scan);
  if (scan.end < text.size() && text[scan.end] == '+') {
    return ErrorAt{"a local version label (`+...`) is only allowed with `==` and `!=`, not with " +
                       quoted(op_text),
                   scan.end};
  }
  return std::nullopt;
}

struct SpecifierParts {
  Operator op = Operator::equal;
  bool wildcard = false;
  std::size_t version_begin = 0;
  std::size_t version_end = 0;
};

std::optional<ErrorAt> parse_parts(std::string_view text, SpecifierParts& parts) {
  std::size_t pos = pep440::skip_spaces(text, 0);
  const OperatorSpelling* found = nullptr;
  for (const OperatorSpelling& spelling : kOperators) {
    if (text.substr(pos, spelling.text.size()) == spelling.text) {
      found = &spelling;
      break;
    }
  }
  if (found == nullptr) {
    if (pos == text.size()) {
      return ErrorAt{"expected a version specifier such as `>=1.0`, found nothing", pos};
    }
    return ErrorAt{
        "expected an operator (`==`, `!=`, `<=`, `>=`, `<`, `>`, `~=` or `===`), found " +
            pep440::describe_char_at(text, pos),
        pos};
  }
  parts.op = found->op;
  const std::size_t after_op = pos + found->text.size();
  pos = pep440::skip_spaces(text, after_op);
  const std::string missing_version = "expected a version after " + quoted(found->text);
  std::size_t end = pos;
  if (parts.op == Operator::arbitrary) {
    end = arbitrary_end(text, pos);
    if (end == pos) return ErrorAt{missing_version, pos};
  } else {
    pep440::VersionScan scan;
    if (auto error = pep440::scan_release(text, pos, scan)) {
      if (error->message.starts_with("expected a version number")) {
        return ErrorAt{missing_version + ", found " + pep440::describe_char_at(text, pos), pos};
      }
      return error;
    }
    if (auto error = scan_operator_version(text, parts.op, scan, parts.wildcard)) return error;
    end = scan.end;
  }
  const std::size_t rest = pep440::skip_spaces(text, end);
  if (rest != text.size()) {
    return ErrorAt{
        "unexpected " + pep440::describe_char_at(text, rest) + " after " +
            quoted(text.substr(after_op - found->text.size(), end - after_op + found->text.size())),
        rest};
  }
  parts.version_begin = pos;
  parts.version_end = end;
  return std::nullopt;
}

bool ascii_iequal_arbitrary(std::string_view spec_text, std::string_view version_text) {
  // packaging compares str.lower() of both; the Kelvin sign is the one non-ASCII character
  // whose lower case is ASCII (`k`).
  constexpr std::string_view kKelvin = "\xE2\x84\xAA";
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < spec_text.size() && j < version_text.size()) {
    char c = spec_text[i];
    if (spec_text.substr(i, kKelvin.size()) == kKelvin) {
      c = 'k';
      i += kKelvin.size();
    } else {
      ++i;
    }
    if (pep440::ascii_lower(c) != pep440::ascii_lower(version_text[j])) return false;
    ++j;
  }
  return i == spec_text.size() && j == version_text.size();
}

// `==X.*`: the same epoch, and the release padded with zeros starts with X's numbers.
bool matches_prefix(const Version& v, const Version& prefix) {
  if (v.epoch() != prefix.epoch()) return false;
  for (std::size_t i = 0; i < prefix.release().size(); ++i) {
    if (pep440::release_at(v, i) != prefix.release()[i]) return false;
  }
  return true;
}

// The upper end of `~=X.Y.Z` is `X.(Y+1).dev0`; below it means the release numbers before
// the last one of the specifier are at most X.Y. Written this way it cannot overflow.
bool below_compatible_ceiling(const Version& v, const Version& spec) {
  if (v.epoch() != spec.epoch()) return v.epoch() < spec.epoch();
  const std::size_t n = spec.release().size() - 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = pep440::release_at(v, i);
    if (x != spec.release()[i]) return x < spec.release()[i];
  }
  return true;
}

// `>V`: excludes V's post-releases and local versions unless V is itself a post or dev
// release, whose successors are all above V's public part.
bool matches_greater(const Version& v, const Version& spec) {
  if (spec.dev() || spec.post()) return pep440::compare_public(v, spec) > 0;
  const std::strong_ordering by_release = pep440::compare_release(v, spec);
  if (by_release != 0) return by_release > 0;
  return pep440::pre_rank(v) > pep440::pre_rank(spec);
}

// `<V`: excludes V's pre-releases unless V is one.
bool matches_less(const Version& v, const Version& spec) {
  if (spec.is_prerelease()) return v < spec;
  return pep440::compare_with_dev0(v, spec) < 0;
}

}  // namespace

std::string_view operator_text(Operator op) {
  for (const OperatorSpelling& spelling : kOperators) {
    if (spelling.op == op) return spelling.text;
  }
  return "==";
}

Expected<Specifier, ParseError> Specifier::parse(std::string_view text) {
  SpecifierParts parts;
  if (auto error = parse_parts(text, parts)) {
    return unexpected(pep440::to_parse_error(text, *error));
  }
  Specifier spec;
  spec.op_ = parts.op;
  spec.wildcard_ = parts.wildcard;
  spec.version_text_ =
      std::string(text.substr(parts.version_begin, parts.version_end - parts.version_begin));
  if (parts.op != Operator::arbitrary) {
    std::string_view version_only = spec.version_text_;
    if (parts.wildcard) version_only.remove_suffix(2);
    auto version = Version::parse(version_only);
    if (!version) {
      // The scan above accepted this text, so only a changed grammar can get here.
      ParseError error = version.error();
      error.column += pep440::to_parse_error(text, {"", parts.version_begin}).column - 1;
      return unexpected(std::move(error));
    }
    spec.version_ = std::move(version.value());
  }
  return spec;
}

Specifier Specifier::from_parts(Operator op, bool wildcard, std::string version_text,
                                std::optional<Version> version) {
  Specifier spec;
  spec.op_ = op;
  spec.wildcard_ = wildcard;
  spec.version_text_ = std::move(version_text);
  spec.version_ = std::move(version);
  return spec;
}

bool Specifier::mentions_prerelease() const {
  if (op_ == Operator::not_equal || wildcard_) return false;
  if (op_ == Operator::arbitrary) {
    const auto parsed = Version::parse(version_text_);
    return parsed && parsed->is_prerelease();
  }
  return version_->is_prerelease();
}

bool Specifier::matches(const Version& v) const {
  if (op_ == Operator::arbitrary) return ascii_iequal_arbitrary(version_text_, v.to_string());
  const Version& spec = *version_;
  switch (op_) {
    case Operator::equal:
    case Operator::not_equal: {
      bool equal = false;
      if (wildcard_) {
        equal = matches_prefix(v, spec);
      } else if (spec.has_local()) {
        equal = v == spec;
      } else {
        equal = pep440::compare_public(v, spec) == 0;
      }
      return op_ == Operator::equal ? equal : !equal;
    }
    case Operator::less_equal:
      return pep440::compare_public(v, spec) <= 0;
    case Operator::greater_equal:
      return v >= spec;
    case Operator::less:
      return matches_less(v, spec);
    case Operator::greater:
      return matches_greater(v, spec);
    case Operator::compatible:
      return v >= spec && below_compatible_ceiling(v, spec);
    case Operator::arbitrary:
      break;
  }
  return false;
}

std::string Specifier::to_string() const { return std::string(operator_text(op_)) + version_text_; }

}  // namespace bevenv::core
