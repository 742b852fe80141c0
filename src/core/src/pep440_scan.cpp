#include "pep440_scan.hpp"

#include <array>
#include <limits>
#include <string>

namespace bevenv::core::pep440 {
namespace {

constexpr std::uint64_t kMaxNumber = std::numeric_limits<std::uint64_t>::max();

bool digit_at(std::string_view text, std::size_t pos) {
  return pos < text.size() && is_digit(text[pos]);
}

std::size_t skip_digits(std::string_view text, std::size_t pos) {
  while (digit_at(text, pos)) ++pos;
  return pos;
}

std::size_t skip_separator(std::string_view text, std::size_t pos) {
  if (pos < text.size() && (text[pos] == '.' || text[pos] == '_' || text[pos] == '-')) {
    return pos + 1;
  }
  return pos;
}

// packaging keeps arbitrary-precision integers; bevenv stores 64 bits and says so.
std::optional<ErrorAt> to_number(std::string_view text, std::size_t begin, std::size_t end,
                                 std::uint64_t& value) {
  value = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (kMaxNumber - digit) / 10) {
      return ErrorAt{"number `" + std::string(text.substr(begin, end - begin)) +
                         "` is too large (bevenv supports numbers up to 2^64-1)",
                     begin};
    }
    value = value * 10 + digit;
  }
  return std::nullopt;
}

bool word_at(std::string_view text, std::size_t pos, std::string_view word) {
  if (pos + word.size() > text.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (ascii_lower(text[pos + i]) != word[i]) return false;
  }
  return true;
}

struct Spelling {
  std::string_view word;
  int kind;
};

// Longer spellings come first, as in packaging's alternations (`alpha` before `a`).
constexpr std::array<Spelling, 8> kPreSpellings{{{"alpha", 0},
                                                 {"a", 0},
                                                 {"beta", 1},
                                                 {"b", 1},
                                                 {"preview", 2},
                                                 {"pre", 2},
                                                 {"c", 2},
                                                 {"rc", 2}}};
constexpr std::array<std::string_view, 3> kPostSpellings{{"post", "rev", "r"}};

// `[._-]? <word> [._-]? N?`: the end of the match and its number, or nothing.
struct TaggedPart {
  std::size_t end = 0;
  std::size_t number_begin = 0;
  std::size_t number_end = 0;
};

std::optional<TaggedPart> match_tagged(std::string_view text, std::size_t pos,
                                       std::string_view word) {
  std::size_t at = skip_separator(text, pos);
  if (!word_at(text, at, word)) return std::nullopt;
  at = skip_separator(text, at + word.size());
  const std::size_t digits_end = skip_digits(text, at);
  return TaggedPart{digits_end, at, digits_end};
}

std::optional<ErrorAt> scan_pre(std::string_view text, VersionScan& out) {
  for (const Spelling& spelling : kPreSpellings) {
    const auto part = match_tagged(text, out.end, spelling.word);
    if (!part) continue;
    std::uint64_t number = 0;
    if (auto error = to_number(text, part->number_begin, part->number_end, number)) return error;
    out.pre = PreRelease{static_cast<PreKind>(spelling.kind), number};
    out.end = part->end;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<ErrorAt> scan_post(std::string_view text, VersionScan& out) {
  // The implicit form `1.0-1` is tried first, as in packaging.
  const std::size_t pos = out.end;
  if (pos < text.size() && text[pos] == '-' && digit_at(text, pos + 1)) {
    const std::size_t digits_end = skip_digits(text, pos + 1);
    std::uint64_t number = 0;
    if (auto error = to_number(text, pos + 1, digits_end, number)) return error;
    out.post = number;
    out.end = digits_end;
    return std::nullopt;
  }
  for (std::string_view word : kPostSpellings) {
    const auto part = match_tagged(text, pos, word);
    if (!part) continue;
    std::uint64_t number = 0;
    if (auto error = to_number(text, part->number_begin, part->number_end, number)) return error;
    out.post = number;
    out.end = part->end;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<ErrorAt> scan_dev(std::string_view text, VersionScan& out) {
  const auto part = match_tagged(text, out.end, "dev");
  if (!part) return std::nullopt;
  std::uint64_t number = 0;
  if (auto error = to_number(text, part->number_begin, part->number_end, number)) return error;
  out.dev = number;
  out.end = part->end;
  return std::nullopt;
}

bool local_char_at(std::string_view text, std::size_t pos) {
  return pos < text.size() && is_ascii_alnum(text[pos]);
}

}  // namespace

std::optional<ErrorAt> scan_release(std::string_view text, std::size_t pos, VersionScan& out) {
  out.begin = pos;
  if (pos < text.size() && (text[pos] == 'v' || text[pos] == 'V')) ++pos;
  std::size_t release_begin = pos;
  const std::size_t first_end = skip_digits(text, pos);
  if (first_end > pos && first_end < text.size() && text[first_end] == '!') {
    if (auto error = to_number(text, pos, first_end, out.epoch)) return error;
    release_begin = first_end + 1;
  }
  if (!digit_at(text, release_begin)) {
    const bool after_epoch = release_begin != pos;
    return ErrorAt{
        after_epoch ? "expected a release number after the epoch `" +
                          std::string(text.substr(pos, release_begin - pos)) + "`"
                    : "expected a version number, found " + describe_char_at(text, release_begin),
        release_begin};
  }
  std::size_t at = release_begin;
  out.release.reserve(4);  // one allocation for nearly every version (`1.10.0`, `2024.1.1.1`)
  while (true) {
    const std::size_t digits_end = skip_digits(text, at);
    std::uint64_t number = 0;
    if (auto error = to_number(text, at, digits_end, number)) return error;
    out.release.push_back(number);
    at = digits_end;
    if (at < text.size() && text[at] == '.' && digit_at(text, at + 1)) {
      ++at;
      continue;
    }
    break;
  }
  out.release_end = at;
  out.end = at;
  return std::nullopt;
}

std::optional<ErrorAt> scan_suffixes(std::string_view text, VersionScan& out) {
  if (auto error = scan_pre(text, out)) return error;
  if (auto error = scan_post(text, out)) return error;
  return scan_dev(text, out);
}

std::optional<ErrorAt> scan_local(std::string_view text, VersionScan& out) {
  const std::size_t plus = out.end;
  if (plus >= text.size() || text[plus] != '+' || !local_char_at(text, plus + 1)) {
    return std::nullopt;
  }
  std::vector<LocalSegment> segments;
  std::size_t at = plus + 1;
  while (true) {
    const std::size_t begin = at;
    bool numeric = true;
    while (local_char_at(text, at)) {
      numeric = numeric && is_digit(text[at]);
      ++at;
    }
    if (numeric) {
      std::uint64_t number = 0;
      if (auto error = to_number(text, begin, at, number)) return error;
      segments.emplace_back(number);
    } else {
      std::string word(text.substr(begin, at - begin));
      for (char& c : word) c = ascii_lower(c);
      segments.emplace_back(std::move(word));
    }
    const bool separator =
        at < text.size() && (text[at] == '.' || text[at] == '_' || text[at] == '-');
    if (separator && local_char_at(text, at + 1)) {
      ++at;
      continue;
    }
    break;
  }
  out.local = std::move(segments);
  out.end = at;
  return std::nullopt;
}

ErrorAt leftover_error(std::string_view text, const VersionScan& scan) {
  const std::size_t pos = scan.end;
  const std::string found = describe_char_at(text, pos);
  if (pos < text.size() && text[pos] == '+') {
    if (!scan.local.empty()) return {"unexpected `+` after the local version label", pos};
    return {"expected a local version label (letters and digits) after `+`", pos + 1};
  }
  if (!scan.local.empty()) {
    return {"unexpected " + found + " in the local version label; use letters, digits and `.`",
            pos};
  }
  return {"unexpected " + found + " after version `" +
              std::string(text.substr(scan.begin, pos - scan.begin)) +
              "`; expected a pre-, post- or dev-release tag (`rc1`, `.post1`, `.dev1`) or "
              "`+local`",
          pos};
}

}  // namespace bevenv::core::pep440
