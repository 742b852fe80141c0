#include "bevenv/core/version.hpp"

#include <charconv>
#include <string>

#include "bevenv/util/enum_words.hpp"
#include "pep440_order.hpp"
#include "pep440_scan.hpp"

namespace bevenv::core {
namespace {

constexpr util::EnumWord<PreKind> kPreTags[] = {
    {PreKind::alpha, "a"}, {PreKind::beta, "b"}, {PreKind::rc, "rc"}};

std::string_view pre_tag(PreKind kind) { return util::word_of(kPreTags, kind, "a"); }

// Without the temporary string std::to_string makes: a lock parses thousands of versions.
void append_number(std::string& out, std::uint64_t n) {
  char digits[20];
  const auto written = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, written.ptr);
}

void append_release(std::string& out, std::uint64_t epoch, const std::vector<std::uint64_t>& r) {
  if (epoch != 0) {
    append_number(out, epoch);
    out += '!';
  }
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (i != 0) out += '.';
    append_number(out, r[i]);
  }
}

std::strong_ordering compare_local(const std::vector<LocalSegment>& a,
                                   const std::vector<LocalSegment>& b) {
  const std::size_t common = a.size() < b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < common; ++i) {
    const bool a_number = std::holds_alternative<std::uint64_t>(a[i]);
    const bool b_number = std::holds_alternative<std::uint64_t>(b[i]);
    if (a_number && b_number) {
      const std::uint64_t x = std::get<std::uint64_t>(a[i]);
      const std::uint64_t y = std::get<std::uint64_t>(b[i]);
      if (x != y) return x <=> y;
      continue;
    }
    // PEP 440: a numeric segment sorts above any alphanumeric one.
    if (a_number) return std::strong_ordering::greater;
    if (b_number) return std::strong_ordering::less;
    const int c = std::get<std::string>(a[i]).compare(std::get<std::string>(b[i]));
    if (c != 0) return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
  }
  return a.size() <=> b.size();
}

}  // namespace

Expected<Version, ParseError> Version::parse(std::string_view text) {
  pep440::VersionScan scan;
  const std::size_t begin = pep440::skip_spaces(text, 0);
  std::optional<pep440::ErrorAt> error = pep440::scan_release(text, begin, scan);
  if (!error) error = pep440::scan_suffixes(text, scan);
  if (!error) error = pep440::scan_local(text, scan);
  if (!error && pep440::skip_spaces(text, scan.end) != text.size()) {
    error = pep440::leftover_error(text, scan);
  }
  if (error) {
    if (begin == text.size()) error = pep440::ErrorAt{"expected a version, found nothing", 0};
    return unexpected(pep440::to_parse_error(text, *error));
  }
  return made(std::move(static_cast<VersionParts&>(scan)));
}

Version Version::made(Parts parts) {
  auto shared = std::make_shared<Made>();
  std::string& out = shared->text;
  append_release(out, parts.epoch, parts.release);
  if (parts.pre) {
    out += pre_tag(parts.pre->kind);
    append_number(out, parts.pre->number);
  }
  if (parts.post) {
    out += ".post";
    append_number(out, *parts.post);
  }
  if (parts.dev) {
    out += ".dev";
    append_number(out, *parts.dev);
  }
  shared->public_length = out.size();
  for (std::size_t i = 0; i < parts.local.size(); ++i) {
    out += i == 0 ? '+' : '.';
    if (std::holds_alternative<std::uint64_t>(parts.local[i])) {
      append_number(out, std::get<std::uint64_t>(parts.local[i]));
    } else {
      out += std::get<std::string>(parts.local[i]);
    }
  }
  shared->parts = std::move(parts);
  Version v;
  v.made_ = std::move(shared);
  return v;
}

std::string Version::public_string() const {
  return made_ ? made_->text.substr(0, made_->public_length) : std::string();
}

std::string Version::local_string() const {
  return has_local() ? made_->text.substr(made_->public_length + 1) : std::string();
}

std::string Version::to_string() const { return made_ ? made_->text : std::string(); }

Version Version::without_local() const {
  if (!has_local()) return *this;
  const Parts& p = parts();
  return made(Parts{p.epoch, p.release, p.pre, p.post, p.dev, {}});
}

Version Version::base_version() const { return made(Parts{epoch(), release(), {}, {}, {}, {}}); }

const Version::Parts Version::kNone;

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  const std::strong_ordering by_public = pep440::compare_public(a, b);
  if (by_public != 0) return by_public;
  return compare_local(a.local(), b.local());
}

namespace pep440 {

std::strong_ordering compare_release(const Version& a, const Version& b) {
  if (a.epoch() != b.epoch()) return a.epoch() <=> b.epoch();
  const std::size_t n =
      a.release().size() > b.release().size() ? a.release().size() : b.release().size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = release_at(a, i);
    const std::uint64_t y = release_at(b, i);
    if (x != y) return x <=> y;
  }
  return std::strong_ordering::equal;
}

PreRank pre_rank(const Version& v) {
  if (v.pre()) return {static_cast<int>(v.pre()->kind), v.pre()->number};
  if (!v.post() && v.dev()) return {-1, 0};
  return {3, 0};
}

namespace {

// The suffix of packaging's key after the pre-release part: (has post, post, no dev, dev).
std::strong_ordering compare_post_dev(const std::optional<std::uint64_t>& post_a,
                                      const std::optional<std::uint64_t>& dev_a,
                                      const std::optional<std::uint64_t>& post_b,
                                      const std::optional<std::uint64_t>& dev_b) {
  if (post_a.has_value() != post_b.has_value()) return post_a.has_value() <=> post_b.has_value();
  if (post_a && *post_a != *post_b) return *post_a <=> *post_b;
  if (dev_a.has_value() != dev_b.has_value()) return dev_b.has_value() <=> dev_a.has_value();
  if (dev_a && *dev_a != *dev_b) return *dev_a <=> *dev_b;
  return std::strong_ordering::equal;
}

}  // namespace

std::strong_ordering compare_public(const Version& a, const Version& b) {
  const std::strong_ordering by_release = compare_release(a, b);
  if (by_release != 0) return by_release;
  const PreRank pa = pre_rank(a);
  const PreRank pb = pre_rank(b);
  if (pa != pb) return pa <=> pb;
  return compare_post_dev(a.post(), a.dev(), b.post(), b.dev());
}

std::strong_ordering compare_with_dev0(const Version& v, const Version& bound) {
  const std::strong_ordering by_release = compare_release(v, bound);
  if (by_release != 0) return by_release;
  // The bound keeps its pre and post parts and gains `.dev0`, which makes a post-less
  // final a dev-only release.
  const std::optional<std::uint64_t> dev0 = 0;
  PreRank bound_rank{3, 0};
  if (bound.pre()) {
    bound_rank = {static_cast<int>(bound.pre()->kind), bound.pre()->number};
  } else if (!bound.post()) {
    bound_rank = {-1, 0};
  }
  const PreRank vr = pre_rank(v);
  if (vr != bound_rank) return vr <=> bound_rank;
  return compare_post_dev(v.post(), v.dev(), bound.post(), dev0);
}

}  // namespace pep440
}  // namespace bevenv::core
